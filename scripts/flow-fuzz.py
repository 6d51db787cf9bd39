#!/usr/bin/env python3
"""Differential fuzzing of cpusteer's steering program against its spec.

Generates frames from their structure (VLAN tags, IPv4 options and
fragments, IPv6 extension headers, TCP/UDP/SCTP and other protocols,
VXLAN, GENEVE, GRE, IPIP, SIT, ERSPAN and GTP-U tunnels with Ethernet, IP or
other payloads), then mutates their bytes (IP length fields, padding and
trailing bytes, cuts, EtherTypes, flag bits, random bytes). Every frame
goes through the kernel program (`cpusteer classify --json`, under several
configurations) and through scripts/flow-verdict.py, which is
docs/flow-hash.md as code; the two must agree on the verdict, the reason,
the flow, its hash and bucket, the tunnel, the outer flow and the fallback
reason, and the CPU: exactly where the spec fixes it (--non-ip cpu:N, a
single target CPU), and one CPU per bucket otherwise.

    scripts/flow-fuzz.py [--seed N] [--frames N] [--cpusteer PATH]
                         [--keep DIR] [--require-coverage]

The same seed makes the same frames. A disagreement prints the frame (in
hex), what the spec and the kernel said, and the `classify` command that
shows it; --keep DIR keeps each configuration's capture there. Exit
status: 0 when they agree on every frame, 1 when not, 2 on a usage or
setup error. Needs root (classify loads the BPF program).
"""
import argparse
import importlib.util
import ipaddress
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("flow_verdict",
                                               os.path.join(_here, "flow-verdict.py"))
verdict = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(verdict)

KEYS = ("000102030405060708090a0b0c0d0e0f", "f00dfeed0123456789abcdef13579bdf")
# The configurations each frame is classified under: (name, cpus, options).
CONFIGS = (
    ("inner-all", "0-1", ["--key", KEYS[0], "--inner", "all", "--buckets", "509"]),
    ("inner-some-symmetric-siphash13", "1",
     ["--key", KEYS[1], "--inner", "vxlan:8472,geneve,ipip,erspan,gtpu-teid", "--non-ip", "cpu:1",
      "--symmetric", "--hash", "siphash13", "--buckets", "64"]),
    ("no-inner", "0-1", ["--key", KEYS[1], "--non-ip", "cpu:0"]),
)
MAX_FRAME = 1514
VXLAN_PORTS = (4789, 8472)


def be16(v):
    return struct.pack(">H", v & 0xFFFF)


def ip_checksum(header):
    s = sum(struct.unpack(">%dH" % (len(header) // 2), header))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


class Built:
    """Bytes, and what a mutation may aim at: IP headers (their offsets and
    families), EtherType fields, tunnel headers and header boundaries."""
    def __init__(self, data=b"", ips=(), etypes=(), tunnels=(), cuts=()):
        self.data = bytes(data)
        self.ips, self.etypes = list(ips), list(etypes)
        self.tunnels, self.cuts = list(tunnels), list(cuts)

    def wrapped(self, head, tail=b""):
        """This inside `head`: every mark moves by its length."""
        n = len(head)
        return Built(head + self.data + tail,
                     [(at + n, fam) for at, fam in self.ips],
                     [at + n for at in self.etypes],
                     [(at + n, kind) for at, kind in self.tunnels],
                     [0, n] + [at + n for at in self.cuts])


class Generator:
    """Frames from their structure: each choice is the rng's, so a seed
    makes the same frames."""
    def __init__(self, rng):
        self.r = rng

    def chance(self, p):
        return self.r.random() < p

    def rbytes(self, n):
        return bytes(self.r.getrandbits(8) for _ in range(n))

    def addr(self, family):
        pool = self.r.randrange(4)            # few hosts: flows repeat
        if family == 4:
            return bytes([10, pool, self.r.randrange(3), self.r.randrange(1, 250)])
        return bytes([0xFD, 0, 0, pool]) + bytes(10) + bytes([0, self.r.randrange(1, 250)])

    # ---- layer 2 ----

    def ethertype(self):
        return self.r.choice((0x0806, 0x0000, 0x88CC, 0x05DC, 0x0600, 0x6558, 0x8847,
                              0x8863, 0x8864, self.r.getrandbits(16)))

    def ethernet(self, depth):
        """An Ethernet frame: tags, then IPv4, IPv6 or something else."""
        tags = self.r.choices((0, 1, 2, 3, 4, 5), weights=(60, 15, 10, 5, 5, 5))[0]
        pick = self.r.random()
        if pick < 0.45:
            etype, body = 0x0800, self.ipv4(depth)
        elif pick < 0.9:
            etype, body = 0x86DD, self.ipv6(depth)
        else:
            etype, body = self.ethertype(), Built(self.rbytes(self.r.randrange(0, 60)))
        head = self.rbytes(12)
        etype_at = 12 + 4 * tags
        for _ in range(tags):
            head += be16(self.r.choice((0x8100, 0x88A8, 0x9100, 0x9200))) + \
                be16(self.r.getrandbits(12))
        pick = self.r.random()
        if etype in (0x0800, 0x86DD) and pick < 0.15:
            head += be16(0x8864) + self.pppoe_session(etype, len(body.data))
        elif pick < 0.3:
            head += be16(self.r.choice((0x8847, 0x8848))) + self.mpls_stack()
        else:
            head += be16(etype)
        built = body.wrapped(head)
        built.etypes.append(etype_at)
        return built

    def mpls_stack(self):
        """One to nine label stack entries, mostly with the bottom-of-stack
        bit on the last only, sometimes on none or an earlier one."""
        n = self.r.choices(range(1, 10), weights=(30, 20, 10, 8, 6, 6, 6, 6, 8))[0]
        bottom = n - 1 if self.r.random() < 0.9 else self.r.randrange(-1, n)
        return b"".join(be16(self.r.getrandbits(16)) +
                        bytes(((self.r.getrandbits(8) & 0xFE) | (i == bottom),
                               self.r.getrandbits(8)))
                        for i in range(n))

    def pppoe_session(self, etype, length):
        """A PPPoE session header and PPP protocol for a datagram of
        EtherType etype: mostly right, sometimes of another version, type,
        code or PPP protocol, and with a Length that is rarely true, since
        nothing should read it."""
        ppp = {0x0800: 0x0021, 0x86DD: 0x0057}[etype]
        ver_type, code = 0x11, 0
        pick = self.r.random()
        if pick < 0.1:
            ppp = self.r.choice((0xC021, 0x8021, 0x8057, 0x0021, 0x0057, self.r.getrandbits(16)))
        elif pick < 0.15:
            ver_type = self.r.choice((0x12, 0x21, 0x00, self.r.getrandbits(8)))
        elif pick < 0.2:
            code = self.r.choice((0x09, 0xA7, self.r.getrandbits(8)))
        if self.r.random() < 0.5:
            length = self.r.getrandbits(16)
        return bytes((ver_type, code)) + self.rbytes(2) + be16(length + 2) + be16(ppp)

    # ---- IP ----

    def ipv4(self, depth):
        proto, l4 = self.transport(4, depth)
        options = self.rbytes(4 * self.r.choice((0, 0, 0, 1, 3, 10)))
        frag = 0
        if self.chance(0.12):
            frag = self.r.choice((0x2000, 0x2000 | self.r.randrange(1, 0x2000),
                                  self.r.randrange(1, 0x2000)))
        if self.chance(0.2):
            frag |= 0x4000                    # DF: no fragment
        hlen = 20 + len(options)
        header = (bytes([0x40 | hlen // 4, self.r.getrandbits(8)]) + be16(hlen + len(l4.data)) +
                  be16(self.r.getrandbits(16)) + be16(frag) + bytes([64, proto]) + b"\0\0" +
                  self.addr(4) + self.addr(4) + options)
        header = header[:10] + be16(ip_checksum(header)) + header[12:]
        built = l4.wrapped(header)
        built.ips.append((0, 4))
        return built

    def ipv6(self, depth):
        proto, l4 = self.transport(6, depth)
        chain = []
        for _ in range(self.r.choice((0, 0, 0, 1, 2, 3, 7, 8, 9))):
            chain.append(self.r.choice((0, 43, 60, 60, 44)))
        exts, cuts = b"", []
        for i, kind in enumerate(chain):
            nexthdr = chain[i + 1] if i + 1 < len(chain) else proto
            cuts.append(len(exts))
            if kind == 44:
                offset_m = 0 if self.chance(0.6) else self.r.choice(
                    (1, self.r.randrange(1, 0x2000) << 3, self.r.getrandbits(16)))
                exts += bytes([nexthdr, 0]) + be16(offset_m) + self.rbytes(4)
            else:
                units = self.r.choice((0, 0, 0, 1, 3))
                exts += bytes([nexthdr, units]) + self.rbytes(6 + 8 * units)
        first = chain[0] if chain else proto
        header = (struct.pack(">I", 0x60000000 | self.r.getrandbits(20)) +
                  be16(len(exts) + len(l4.data)) + bytes([first, 64]) +
                  self.addr(6) + self.addr(6))
        built = l4.wrapped(header + exts)
        built.ips.append((0, 6))
        built.cuts += [40 + at for at in cuts]
        return built

    # ---- transport and tunnels ----

    def transport(self, family, depth):
        """(protocol, its bytes): plain, or a tunnel while depth allows."""
        tunnels = ("vxlan", "geneve", "gre", "ipip", "sit", "erspan", "gtpu") if depth < 2 else ()
        pick = self.r.random()
        if tunnels and pick < (0.5 if depth == 0 else 0.1):
            return self.tunnel(self.r.choice(tunnels), depth + 1)
        pick = self.r.random()
        if pick < 0.35:
            return 17, self.udp(self.r.getrandbits(16), self.rbytes(self.r.randrange(0, 30)))
        if pick < 0.6:
            return 6, Built(be16(self.r.getrandbits(16)) + be16(self.r.getrandbits(16)) +
                            self.rbytes(16 + self.r.randrange(0, 20)))
        if pick < 0.7:
            return 132, Built(self.rbytes(12 + self.r.randrange(0, 16)))
        if pick < 0.8:
            return (1 if family == 4 else 58), Built(self.rbytes(8 + self.r.randrange(0, 20)))
        # ESP, AH, no next header, and numbers that mean more elsewhere
        proto = self.r.choice((50, 51, 59, 255, 0, 43, 60, 44, 47, 4, 41))
        return proto, Built(self.rbytes(self.r.randrange(0, 40)))

    def udp(self, dport, payload):
        return Built(be16(self.r.getrandbits(16)) + be16(dport) + be16(8 + len(payload)) +
                     b"\0\0" + payload)

    def tunnel_payload(self, depth):
        """(type, bytes) of what GENEVE or GRE carry."""
        pick = self.r.random()
        if pick < 0.3:
            return 0x6558, self.ethernet(depth)
        if pick < 0.6:
            return 0x0800, self.ipv4(depth)
        if pick < 0.9:
            return 0x86DD, self.ipv6(depth)
        return self.ethertype(), Built(self.rbytes(self.r.randrange(0, 40)))

    def tunnel(self, kind, depth):
        if kind == "vxlan":
            flags = 0x08 if self.chance(0.85) else self.r.getrandbits(8)
            reserved = bytes(3) if self.chance(0.8) else self.rbytes(3)
            hdr = bytes([flags]) + reserved + self.rbytes(3) + \
                (b"\0" if self.chance(0.8) else self.rbytes(1))
            inner = self.ethernet(depth).wrapped(hdr)
            inner.tunnels.append((0, kind))
            return 17, inner.wrapped(self.udp_head(self.r.choice(VXLAN_PORTS), inner))
        if kind == "geneve":
            words = self.r.choice((0, 0, 1, 3, 63 if self.chance(0.1) else 2))
            first = (0 if self.chance(0.9) else self.r.randrange(1, 4)) << 6 | words
            bits = 0 if self.chance(0.7) else self.r.getrandbits(8)
            ptype, payload = self.tunnel_payload(depth)
            hdr = bytes([first, bits]) + be16(ptype) + self.rbytes(4) + self.rbytes(4 * words)
            inner = payload.wrapped(hdr)
            inner.tunnels.append((0, kind))
            return 17, inner.wrapped(self.udp_head(6081, inner))
        if kind == "gre":
            flags = self.r.choice((0, 0x2000, 0xB000, 0x8000, 0x1000))
            if self.chance(0.2):
                flags |= self.r.choice((0x4000, 0x0800, 0x0400, 0x0100, 0x00F8,
                                        0x0001, self.r.getrandbits(16)))
            ptype, payload = self.tunnel_payload(depth)
            inner = payload.wrapped(self.gre_head(flags, ptype))
            inner.tunnels.append((0, kind))
            return 47, inner
        if kind == "erspan":
            return 47, self.erspan(depth)
        if kind == "gtpu":
            inner = self.gtpu(depth)
            return 17, inner.wrapped(self.udp_head(2152, inner))
        if kind == "ipip":
            return 4, self.ipv4(depth) if self.chance(0.9) else self.ipv6(depth)
        return 41, self.ipv6(depth) if self.chance(0.9) else self.ipv4(depth)

    def erspan(self, depth):
        """GRE around ERSPAN type I, II or III, mostly well formed."""
        erspan_type = self.r.choice((1, 2, 2, 3, 3))
        flags = self.r.choice((0, 0x2000, 0x8000)) | (0 if erspan_type == 1 else 0x1000)
        if self.chance(0.1):
            flags ^= self.r.choice((0x1000, 0x4000, 0x0001, 0x00F8))
        if erspan_type == 1:
            hdr = b""
        elif erspan_type == 2:
            version = 1 if self.chance(0.9) else self.r.getrandbits(4)
            hdr = bytes([version << 4 | self.r.getrandbits(4)]) + self.rbytes(7)
        else:
            version = 2 if self.chance(0.9) else self.r.getrandbits(4)
            frame_type = 0 if self.chance(0.85) else self.r.choice((2, 1, 31))
            subheader = self.r.getrandbits(1)
            hdr = bytes([version << 4 | self.r.getrandbits(4)]) + self.rbytes(9) + \
                bytes([self.r.getrandbits(1) << 7 | frame_type << 2 | self.r.getrandbits(2),
                       self.r.getrandbits(7) << 1 | subheader]) + self.rbytes(8 * subheader)
        inner = self.ethernet(depth).wrapped(hdr)
        inner.tunnels.append((0, "erspan"))
        inner = inner.wrapped(self.gre_head(flags, 0x22EB if erspan_type == 3 else 0x88BE))
        inner.tunnels.append((0, "gre"))
        return inner

    def gtpu(self, depth):
        """GTP-U, mostly a G-PDU carrying IP, with optional fields and up
        to five extension headers of 4 to 12 octets, some of length 0."""
        flags = self.r.choice((0, 0, 0x04, 0x02, 0x01, 0x07))
        first = 0x30 | flags if self.chance(0.9) else self.r.getrandbits(8)
        mtype = 255 if self.chance(0.8) else self.r.choice((254, 1, 2, 26, 31))
        exts = b""
        if flags:
            count = self.r.choice((0, 1, 1, 2, 4, 5))
            nxt = 0x85 if count else (0 if self.chance(0.8) else 0x85)
            exts = self.rbytes(3) + bytes([nxt])
            for i in range(count):
                units = self.r.choice((1, 1, 2, 3, 0 if self.chance(0.1) else 1))
                body = self.rbytes(max(units * 4 - 2, 0))
                exts += bytes([units]) + body + bytes([0x85 if i + 1 < count else 0])
        pick = self.r.random()
        payload = self.ipv4(depth) if pick < 0.45 else self.ipv6(depth) if pick < 0.9 else \
            Built(self.rbytes(self.r.randrange(0, 40)))
        hdr = bytes([first, mtype]) + be16(len(exts) + len(payload.data)) + self.rbytes(4) + exts
        inner = payload.wrapped(hdr)
        inner.tunnels.append((0, "gtpu"))
        inner.cuts += [3, 8]    # inside the 8 octets a tunnel is read by, and after them
        return inner

    def gre_head(self, flags, ptype):
        """A GRE header: flags, protocol, and a random 4-byte field for each
        of checksum, key and sequence number the flags name."""
        fields = sum(1 for bit in (0x8000, 0x2000, 0x1000) if flags & bit)
        return be16(flags) + be16(ptype) + self.rbytes(4 * fields)

    def udp_head(self, dport, inner):
        return be16(self.r.getrandbits(16)) + be16(dport) + be16(8 + len(inner.data)) + b"\0\0"

    # ---- mutations ----

    def mutate(self, b):
        """The frame's bytes after zero or more mutations, and their names."""
        data, done = bytearray(b.data), []
        points = sorted(set(b.cuts + [at for at, _ in b.ips] + [len(data)]))
        for _ in range(self.r.choice((0, 1, 1, 2, 3))):
            pick = self.r.random()
            if pick < 0.35 and b.ips:
                at, family = self.r.choice(b.ips)
                if at + (6 if family == 6 else 4) > len(data):
                    continue
                end = self.r.choice(points + [self.r.randrange(at, len(data) + 30)])
                if self.chance(0.1):
                    value = self.r.getrandbits(16)
                elif family == 4:
                    value = max(end - at, 0)
                else:
                    value = max(end - at - 40, 0)
                field = at + (2 if family == 4 else 4)
                data[field:field + 2] = be16(value)
                done.append("ipv%d length at %d = %d" % (family, at, value))
            elif pick < 0.5:
                extra = self.rbytes(self.r.randrange(1, 40)) if self.chance(0.5) else \
                    bytes(max(60 - len(data), 1))
                data += extra
                done.append("%d trailing bytes" % len(extra))
            elif pick < 0.62:
                cut = self.r.choice(points + [self.r.randrange(14, max(len(data), 15))])
                data = data[:max(cut, 14)]
                done.append("cut at %d" % len(data))
            elif pick < 0.72 and b.etypes:
                at = self.r.choice(b.etypes)
                if at + 2 <= len(data):
                    data[at:at + 2] = be16(self.r.choice((0, 0x0800, 0x86DD, 0x8100)))
                    done.append("EtherType at %d = %02x%02x" % (at, data[at], data[at + 1]))
            elif pick < 0.82 and b.tunnels:
                at, kind = self.r.choice(b.tunnels)
                off = at + self.r.randrange(0, 4)
                if off < len(data):
                    data[off] ^= 1 << self.r.randrange(8)
                    done.append("%s header bit flipped at %d" % (kind, off))
            else:
                off = self.r.randrange(0, min(len(data), 160))
                data[off] = self.r.getrandbits(8)
                done.append("byte %d = %#04x" % (off, data[off]))
        if len(data) < 14:
            data += bytes(14 - len(data))
        return bytes(data[:MAX_FRAME]), done

    def frame(self):
        return self.mutate(self.ethernet(0))


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for frame in frames:
            f.write(struct.pack("<IIII", 0, 0, len(frame), len(frame)) + frame)


def spec_config(options):
    """The configuration that classify's `options` make (--symmetric is
    the one flag; every other option takes a value)."""
    opts, i = {}, 0
    while i < len(options):
        if options[i] == "--symmetric":
            i += 1
            continue
        opts[options[i]] = options[i + 1]
        i += 2
    return verdict.Config(bytes.fromhex(opts["--key"]), opts.get("--hash", "multilinear"),
                          "--symmetric" in options, int(opts.get("--buckets", 512)),
                          opts.get("--inner", "none"), opts.get("--non-ip", "pass"))


def flow_key(j):
    """A flow of classify's JSON as verdict.Flow.key() gives it: a GTP-U
    tunnel's TEID as the ports it takes the place of."""
    if not j:
        return None
    proto = {v: k for k, v in verdict.PROTO_NAMES.items()}.get(j["proto"])
    ports = (j["teid"] >> 16, j["teid"] & 0xFFFF) if "teid" in j else (j["sport"], j["dport"])
    return (j["family"], int(ipaddress.ip_address(j["src"])), int(ipaddress.ip_address(j["dst"])),
            proto if proto is not None else int(j["proto"])) + ports


def differences(want, got, table, cpus):
    """What the kernel's row `got` says otherwise than the spec's `want`."""
    diffs = []

    def differ(what, w, g):
        if w != g:
            diffs.append("%s: spec %s, kernel %s" % (what, w, g))

    differ("verdict", want["verdict"], got["verdict"])
    differ("reason", want["reason"], got["reason"])
    differ("tunnel", want["tunnel"], got["tunnel"])
    if want["tunnel"] and got["tunnel"]:
        differ("outer flow", want["outer"].key(), flow_key(got["outer"]))
        differ("inner fallback", want["inner_fallback"], got["inner_fallback"])
    if want["verdict"] != "redirect" or got["verdict"] != "redirect":
        return diffs
    differ("flow", want["flow"].key() if want["flow"] else None, flow_key(got["flow"]))
    differ("hash", want["hash"], got["hash"])
    differ("bucket", want["bucket"], got["bucket"])
    if want["cpu"] is not None or len(cpus) == 1:
        differ("cpu", want["cpu"] if want["cpu"] is not None else cpus[0], got["cpu"])
    elif got["cpu"] not in cpus:
        diffs.append("cpu: kernel %s, not one of %s" % (got["cpu"], cpus))
    elif table.setdefault(got["bucket"], got["cpu"]) != got["cpu"]:
        diffs.append("cpu: bucket %s went to CPU %s before, now %s"
                     % (got["bucket"], table[got["bucket"]], got["cpu"]))
    return diffs


def classify(cpusteer, cpus, options, pcap):
    cmd = [cpusteer, "classify", "--json", "--cpus", cpus] + options + [pcap]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), run.stderr.strip()))
    return cmd, json.loads(run.stdout)["packets"]


def outcome_name(row):
    if row["tunnel"]:
        return "%s %s" % (row["tunnel"], row["inner_fallback"] or "inner")
    return row["reason"] or row["verdict"]


# What --require-coverage asks the frames to reach under one configuration
# or another, so that a generator that stops reaching a part of the spec
# fails: every pass reason a single-buffer frame can have, and every
# tunnel kind steered by its inner flow and falling back for each reason.
COVERAGE = ["redirect", "non_ip", "truncated_l2", "truncated_l3", "truncated_l4", "bad_l3",
            "bad_ip_length", "ipv6_ext_headers", "vlan_depth", "mpls_depth", "mpls_payload"] + \
    ["%s %s" % (kind, why) for kind in ("vxlan", "geneve", "gre", "ipip", "sit", "erspan", "gtpu")
     for why in ("inner", "truncated", "unsupported", "malformed")
     if (kind, why) not in (("ipip", "unsupported"), ("sit", "unsupported"))] + \
    ["%s outer_fragment" % kind for kind in ("gre", "ipip", "sit")] + \
    ["gtpu signalling"] + \
    ["gtpu-teid %s" % why for why in ("inner", "truncated", "unsupported", "signalling")]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1, help="the frames' seed (default 1)")
    p.add_argument("--frames", type=int, default=4000, help="frames per run (default 4000)")
    p.add_argument("--cpusteer", default=os.path.join(_here, "..", "build", "cpusteer"))
    p.add_argument("--keep", help="keep each configuration's capture in this folder")
    p.add_argument("--require-coverage", action="store_true",
                   help="fail unless the frames reached every outcome in COVERAGE")
    p.add_argument("--show", type=int, default=10, help="disagreements shown (default 10)")
    a = p.parse_args()
    gen = Generator(random.Random(a.seed))
    frames, mutations = [], []
    for _ in range(a.frames):
        frame, done = gen.frame()
        frames.append(frame)
        mutations.append(done)
    folder = a.keep or tempfile.mkdtemp(prefix="flow-fuzz.")
    os.makedirs(folder, exist_ok=True)
    pcap = os.path.join(folder, "seed%d.pcap" % a.seed)
    write_pcap(pcap, frames)
    failed, reached = 0, set()
    for name, cpus, options in CONFIGS:
        cfg = spec_config(options)
        cpu_list = [int(c) for c in (cpus.split("-") if "-" in cpus else [cpus])]
        cpu_list = list(range(cpu_list[0], cpu_list[-1] + 1))
        try:
            cmd, rows = classify(a.cpusteer, cpus, options, pcap)
        except (RuntimeError, OSError, ValueError) as e:
            print("flow-fuzz: %s" % e, file=sys.stderr)
            return 2
        if len(rows) != len(frames):
            print("flow-fuzz: %s: %d rows for %d frames" % (name, len(rows), len(frames)))
            return 1
        table, seen, bad = {}, {}, 0
        for i, (frame, got) in enumerate(zip(frames, rows)):
            want = verdict.decide(frame, cfg)
            seen[outcome_name(want)] = seen.get(outcome_name(want), 0) + 1
            diffs = differences(want, got, table, cpu_list)
            if not diffs:
                continue
            bad += 1
            if bad <= a.show:
                print("# %s: frame %d (%d bytes; %s):" % (name, i + 1, len(frame),
                                                         "; ".join(mutations[i]) or "as built"))
                for d in diffs:
                    print("#   %s" % d)
                print("#   %s" % frame.hex())
        print("# %s: %d frames, %d disagree; outcomes: %s" % (
            name, len(frames), bad, ", ".join("%s %d" % kv for kv in sorted(seen.items()))))
        if bad:
            print("# reproduce: %s" % " ".join(cmd))
            failed += 1
        reached.update(seen)
    missing = [o for o in COVERAGE if o not in reached]
    if a.require_coverage and missing:
        print("# no frame reached %s (seed %d, %d frames)" % (", ".join(missing), a.seed,
                                                              len(frames)))
        failed += 1
    if not a.keep:
        os.remove(pcap)
        os.rmdir(folder)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
