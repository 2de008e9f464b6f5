"""Finding the id and kind of a message the JSON reader refused."""

from __future__ import annotations

import pytest

from lsp_server.lsp.protocol.unreadable_messages import MAX_TOKENS, Salvaged, salvage, valid_id

DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(("body", "expected"), [
    # Too deep for json.loads, id before or after the deep part, string or integer ids.
    ('{"jsonrpc":"2.0","id":7,"method":"m","params":' + DEEP + '}', Salvaged(7, True)),
    ('{"jsonrpc":"2.0","method":"m","params":{"a":' + DEEP + '},"id":"x\\"y"}',
     Salvaged('x"y', True)),
    ('{"params":{"id":1,"method":"n"},"id":-3,"method":"m","x":' + DEEP + '}',
     Salvaged(-3, True)),  # nested "id"/"method" keys are not the message's
    # An answer (no method) and things that name no usable id.
    ('{"jsonrpc":"2.0","id":"r1","result":' + DEEP + '}', Salvaged("r1", False)),
    ('{"jsonrpc":"2.0","id":1.5,"method":"m","params":' + DEEP + '}', Salvaged(None, True)),
    ('{"jsonrpc":"2.0","id":true,"method":"m","params":' + DEEP + '}', Salvaged(None, True)),
    ('{"jsonrpc":"2.0","id":[1],"method":"m","params":' + DEEP + '}', Salvaged(None, True)),
    ('[{"id":1,"method":"m"},' + DEEP + ']', Salvaged(None, False)),
    # Not JSON at all, or cut short: what comes before the break still counts.
    ('{"jsonrpc":"2.0","id":12,"method":"m","params":{', Salvaged(12, True)),
    ("{not json", Salvaged(None, False)),
    ("", Salvaged(None, False)),
])
def test_the_top_level_id_and_method_of_an_unreadable_body(body: str,
                                                           expected: Salvaged) -> None:
    assert salvage(body.encode()) == expected


def test_a_body_that_is_only_bad_utf8_is_read_whole() -> None:
    body = b'{"id":"a","method":"m","params":{"text":"caf\xe9","id":2}}'
    assert salvage(body) == Salvaged("a", True)


def test_a_long_body_is_looked_through_only_so_far() -> None:
    # The id comes after more tokens than are looked at: unknown, said so (is_request None).
    filler = ",".join(["1"] * MAX_TOKENS)
    body = '{"method":"m","params":[' + filler + "," + DEEP + '],"id":5}'
    assert salvage(body.encode()) == Salvaged(None, True)
    body = '{"params":[' + filler + "," + DEEP + '],"id":5}'
    assert salvage(body.encode()) == Salvaged(None, None)


def test_valid_ids_are_what_lsp_uses() -> None:
    assert [valid_id(v) for v in (0, -1, "", "x", None, True, 1.0, [1], {"a": 1})] == [
        0, -1, "", "x", None, None, None, None, None]
