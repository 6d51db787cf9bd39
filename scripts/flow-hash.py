#!/usr/bin/env python3
"""Recomputes cpusteer's CPU choice for one flow, outside the kernel.

docs/flow-hash.md specifies the format; this is that text as code, written
from the specification rather than from the BPF source, so that a
selftest can hold the two against each other (selftests/test_classify_cli.sh;
scripts/flow-verdict.py uses it for the frames of a capture).

    scripts/flow-hash.py --key HEX [--hash multilinear|siphash13] [--symmetric]
                         [--buckets N] [--teid TEID] SRC DST PROTO [SPORT DPORT]

SRC and DST are IPv4 or IPv6 addresses, PROTO a protocol number; give
ports only for TCP (6), UDP (17) and SCTP (132) when the packet carries
them (not for a non-first fragment). --teid (decimal or 0x hex) gives a
GTP-U tunnel under `--inner gtpu-teid`: the outer addresses, 17 for PROTO,
and the TEID in the ports' place. Prints the message in hex, the 32-bit
hash and the bucket.
"""
import argparse
import functools
import ipaddress
import struct
import sys

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1


def rotl64(x, bits):
    return ((x << bits) | (x >> (64 - bits))) & MASK64


def sip_round(v):
    v0, v1, v2, v3 = v
    v0 = (v0 + v1) & MASK64
    v1 = rotl64(v1, 13) ^ v0
    v0 = rotl64(v0, 32)
    v2 = (v2 + v3) & MASK64
    v3 = rotl64(v3, 16) ^ v2
    v0 = (v0 + v3) & MASK64
    v3 = rotl64(v3, 21) ^ v0
    v2 = (v2 + v1) & MASK64
    v1 = rotl64(v1, 17) ^ v2
    v2 = rotl64(v2, 32)
    return [v0, v1, v2, v3]


def siphash13(key, message):
    """SipHash-1-3 of a byte string under a 16-byte key, as a 64-bit int."""
    k0, k1 = struct.unpack("<QQ", key)
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,
         k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]
    whole = len(message) // 8 * 8
    tail = message[whole:] + bytes(7 - len(message) % 8) + bytes([len(message) & 0xFF])
    for block in [message[i:i + 8] for i in range(0, whole, 8)] + [tail]:
        m = struct.unpack("<Q", block)[0]
        v[3] ^= m
        v = sip_round(v)
        v[0] ^= m
    v[2] ^= 0xFF
    for _ in range(3):
        v = sip_round(v)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


HASH_FAMILIES = ["multilinear", "siphash13"]
MULTILINEAR_KEY_WORDS = 11


@functools.lru_cache(maxsize=16)
def multilinear_key(key):
    """The multilinear hash's key words: word i is SipHash-1-3 under the
    16-byte key of the 8-byte little-endian number i."""
    return [siphash13(key, struct.pack("<Q", i)) for i in range(MULTILINEAR_KEY_WORDS)]


def multilinear_words(message):
    """The message as 32-bit little-endian words, after two zero bytes and
    a byte holding its length: 4 words for IPv4, 10 for IPv6."""
    padded = message + bytes(2) + bytes([len(message)])
    return struct.unpack("<%dI" % (len(padded) // 4), padded)


def murmur3_finalizer(h):
    """MurmurHash3's fmix32: a bijection of 32-bit values."""
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & MASK32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & MASK32
    return h ^ (h >> 16)


def multilinear(words, k):
    """K0 plus the sum of K[i+1] * word i, modulo 2^64; its top 32 bits,
    through MurmurHash3's finalizer."""
    total = k[0]
    for i, word in enumerate(words):
        total += k[i + 1] * word
    return murmur3_finalizer((total & MASK64) >> 32)


def flow_message(src, dst, proto, sport, dport, symmetric):
    """The hashed bytes: addresses, ports, protocol, as on the wire."""
    if symmetric and (int(src), sport) > (int(dst), dport):
        src, dst, sport, dport = dst, src, dport, sport
    return src.packed + dst.packed + struct.pack(">HHB", sport, dport, proto)


def flow_hash(key, message, hash_fn):
    if hash_fn == "multilinear":
        return multilinear(multilinear_words(message), multilinear_key(key))
    h = siphash13(key, message)
    return (h ^ (h >> 32)) & MASK32


def add_hash_options(p):
    """The options that choose a flow's hash and bucket, as cpusteer's."""
    p.add_argument("--key", required=True, type=key_of, help="32 hex digits, as --key")
    p.add_argument("--hash", default="multilinear", choices=HASH_FAMILIES)
    p.add_argument("--symmetric", action="store_true")
    p.add_argument("--buckets", type=int, default=512)


def key_of(text):
    """--key's 16 bytes."""
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != 16:
        raise argparse.ArgumentTypeError("the key is 32 hex digits")
    return key


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_hash_options(p)
    p.add_argument("src", type=ipaddress.ip_address)
    p.add_argument("dst", type=ipaddress.ip_address)
    p.add_argument("proto", type=int)
    p.add_argument("ports", type=int, nargs="*", metavar="PORT")
    p.add_argument("--teid", type=lambda t: int(t, 0), help="a GTP-U tunnel's TEID")
    a = p.parse_args()
    if len(a.ports) not in (0, 2) or a.src.version != a.dst.version:
        p.error("give both ports or none, and two addresses of one family")
    if a.teid is not None and (a.ports or not 0 <= a.teid <= 0xFFFFFFFF):
        p.error("--teid is 32 bits, in place of the ports")
    sport, dport = a.ports or (0, 0)
    if a.teid is not None:
        sport, dport = a.teid >> 16, a.teid & 0xFFFF
    message = flow_message(a.src, a.dst, a.proto, sport, dport, a.symmetric)
    h = flow_hash(a.key, message, a.hash)
    print("message %s\nhash %u\nbucket %u" % (message.hex(), h, h * a.buckets >> 32))
    return 0


if __name__ == "__main__":
    sys.exit(main())
