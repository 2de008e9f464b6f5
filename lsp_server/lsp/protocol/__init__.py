"""Talking LSP: pygls's hooks and transports, messages the server cannot read, positions in
the client's encoding, what the client can take and the calls made to it, and the engine's
results as LSP objects (workspace edits, diagnostics, change annotations)."""
