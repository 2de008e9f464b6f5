"""Response documents: open documents kept parsed and validated as they change
(:mod:`.documents`: which ones, when; :mod:`.state`: one document's state;
:mod:`.validation`: validating and applying while streaming; :mod:`.runs`: preview/apply of
one; :mod:`.code_lens`, :mod:`.views`, :mod:`.block_diff`: what the editor shows of it)."""
