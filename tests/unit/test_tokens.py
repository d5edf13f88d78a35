"""Keys and slugs: base58 text of the asked length, every character equally likely."""

from collections import Counter

from signsvc.infra import tokens

BASE58 = set("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")


def test_keys_and_slugs_are_base58_of_their_length():
    assert len(tokens.generate()) == tokens.KEY_LENGTH and len(tokens.slug()) == 14
    assert set("".join(tokens.generate() for _ in range(200))) == BASE58


def test_every_character_is_equally_likely():
    counts = Counter("".join(tokens.generate() for _ in range(5000)))
    expected = 5000 * tokens.KEY_LENGTH / 58  # about 3,700 each, give or take 2%
    # Bytes 232-255 taken modulo 58 would make the first 24 characters 13% more likely.
    assert all(abs(count - expected) < 0.1 * expected for count in counts.values())
