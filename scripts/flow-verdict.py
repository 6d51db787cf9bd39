#!/usr/bin/env python3
"""What cpusteer decides for each frame of a capture, outside the kernel.

docs/flow-hash.md specifies which frames are steered, by which flow, and
which are passed and why (sections 1, 2 and 6); this is that text as code,
written from the specification rather than from the BPF source, so that
scripts/flow-fuzz.py can hold the kernel program against it. The hash
itself is scripts/flow-hash.py's.

    scripts/flow-verdict.py --key HEX [--hash multilinear|siphash13] [--symmetric]
                            [--buckets N] [--inner LIST] [--non-ip pass|cpu:N]
                            FILE.pcap

prints one JSON object with a "packets" array, one entry per frame, with
the fields of `cpusteer classify --json` that the specification fixes:
verdict, reason, flow, hash, bucket, tunnel, outer and inner_fallback
(the CPU of a hashed flow is the instance's table entry of its bucket,
which the specification leaves to the instance; "cpu" is given only for
non-IP frames sent to the --non-ip CPU).
"""
import argparse
import importlib.util
import ipaddress
import json
import os
import struct
import sys

_spec = importlib.util.spec_from_file_location(
    "flow_hash", os.path.join(os.path.dirname(os.path.abspath(__file__)), "flow-hash.py"))
flow_hash = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(flow_hash)

ETH_IPV4, ETH_IPV6, ETH_TEB = 0x0800, 0x86DD, 0x6558
VLAN_TPIDS = (0x8100, 0x88A8, 0x9100, 0x9200)
ETH_PPPOE_SESSION = 0x8864
PPP_IP = {0x0021: ETH_IPV4, 0x0057: ETH_IPV6}   # PPP protocol -> EtherType
ETH_MPLS = (0x8847, 0x8848)
MAX_MPLS_LABELS = 8
PORT_PROTOS = (6, 17, 132)           # TCP, UDP, SCTP
EXT_HEADERS = (0, 43, 60, 44)        # hop-by-hop, routing, destination options, fragment
MAX_EXT_HEADERS = 8
MAX_VLAN_TAGS = 4
UDP_TUNNELS = ("vxlan", "geneve", "gtpu", "gtpu-teid")
IP_TUNNELS = {47: "gre", 4: "ipip", 41: "sit"}
ERSPAN_TYPES = (0x88BE, 0x22EB)     # GRE protocols: types I and II, type III
DEFAULT_PORTS = {"vxlan": 4789, "geneve": 6081, "gtpu": 2152, "gtpu-teid": 2152}
# `--inner all`: every kind steered by the inner flow (gtpu-teid is not)
ALL_KINDS = ("vxlan", "geneve", "gtpu", "gre", "ipip", "sit", "erspan")
GTPU_G_PDU, GTPU_END_MARKER = 255, 254
MAX_GTPU_EXT_HEADERS = 4
PROTO_NAMES = {6: "tcp", 17: "udp", 132: "sctp", 1: "icmp", 58: "icmpv6"}


class Stop(Exception):
    """A parse that ends with a pass reason of section 1. `limit`: an IPv6
    chain still going after the eight headers walked, not one that runs
    past its payload (section 2 tells the two apart)."""
    def __init__(self, reason, limit=False):
        super().__init__(reason)
        self.reason, self.limit = reason, limit


class Flow:
    """`teid`: a GTP-U tunnel's, hashed where the ports would be."""
    def __init__(self, family, src, dst, proto, sport=0, dport=0, teid=None):
        self.family, self.src, self.dst = family, src, dst
        self.proto, self.sport, self.dport = proto, sport, dport
        self.teid = teid
        if teid is not None:
            self.sport, self.dport = teid >> 16, teid & 0xFFFF

    def key(self):
        return (self.family, int(self.src), int(self.dst), self.proto, self.sport, self.dport)

    def as_json(self):
        j = {"family": self.family, "proto": PROTO_NAMES.get(self.proto, str(self.proto)),
             "src": str(self.src), "dst": str(self.dst)}
        if self.teid is not None:
            j["teid"] = self.teid
        else:
            j.update(sport=self.sport, dport=self.dport)
        return j


class Datagram:
    """A parsed IP datagram: its flow, whether it is a fragment, where its
    transport header starts and where the datagram ends."""
    def __init__(self, flow, fragment, l4, end):
        self.flow, self.fragment, self.l4, self.end = flow, fragment, l4, end


class Config:
    def __init__(self, key, hash_fn="multilinear", symmetric=False, buckets=512,
                 inner="none", non_ip="pass"):
        self.key, self.hash_fn, self.symmetric, self.buckets = key, hash_fn, symmetric, buckets
        self.non_ip_cpu = None if non_ip == "pass" else int(non_ip.split(":", 1)[1])
        self.udp_ports, self.ip_tunnels = {}, set()
        for item in ([] if inner == "none" else inner.split(",")):
            kind, _, port = item.partition(":")
            kinds = ALL_KINDS if kind == "all" else [kind]
            for k in kinds:
                if k in UDP_TUNNELS:
                    self.udp_ports[int(port) if port else DEFAULT_PORTS[k]] = k
                else:
                    self.ip_tunnels.add(k)


def be16(frame, at):
    return struct.unpack_from(">H", frame, at)[0]


# ---- section 1: from frame to flow ----

def ethernet(frame, start, end):
    """Steps 1-3: the EtherType after up to four tags and a PPPoE session
    header, and where the network header starts."""
    if end - start < 14:
        raise Stop("truncated_l2")
    etype, pos, tags = be16(frame, start + 12), start + 14, 0
    while etype in VLAN_TPIDS:
        if tags == MAX_VLAN_TAGS:
            raise Stop("vlan_depth")
        if end - pos < 4:
            raise Stop("truncated_l2")
        etype, pos, tags = be16(frame, pos + 2), pos + 4, tags + 1
    if etype == ETH_PPPOE_SESSION:
        if end - pos < 8:
            raise Stop("truncated_l2")
        if frame[pos] == 0x11 and frame[pos + 1] == 0 and be16(frame, pos + 6) in PPP_IP:
            return PPP_IP[be16(frame, pos + 6)], pos + 8
    elif etype in ETH_MPLS:
        return mpls(frame, pos, end)
    return etype, pos


def mpls(frame, pos, end):
    """Step 3's label stack: the type of what the bottom entry carries, by
    its first nibble, and where it starts."""
    for _ in range(MAX_MPLS_LABELS):
        if end - pos < 4:
            raise Stop("truncated_l2")
        bottom, pos = frame[pos + 2] & 1, pos + 4
        if bottom:
            if end - pos < 1:
                raise Stop("truncated_l3")
            version = frame[pos] >> 4
            if version == 4:
                return ETH_IPV4, pos
            if version == 6:
                return ETH_IPV6, pos
            raise Stop("mpls_payload")
    raise Stop("mpls_depth")


def ports(frame, proto, l4, end):
    if proto not in PORT_PROTOS:
        return 0, 0
    if end - l4 < 4:
        raise Stop("truncated_l4")
    return be16(frame, l4), be16(frame, l4 + 2)


def ipv4(frame, l3, end):
    """Step 4, the first failing check deciding."""
    if end - l3 < 20:
        raise Stop("truncated_l3")
    version, ihl = frame[l3] >> 4, frame[l3] & 0xF
    if version != 4 or ihl < 5:
        raise Stop("bad_l3")
    if end - l3 < ihl * 4:
        raise Stop("truncated_l3")
    total = be16(frame, l3 + 2)
    if total < ihl * 4 or total > end - l3:
        raise Stop("bad_ip_length")
    dend, l4, proto = l3 + total, l3 + ihl * 4, frame[l3 + 9]
    src = ipaddress.IPv4Address(bytes(frame[l3 + 12:l3 + 16]))
    dst = ipaddress.IPv4Address(bytes(frame[l3 + 16:l3 + 20]))
    if be16(frame, l3 + 6) & 0x3FFF:            # MF or a fragment offset
        return Datagram(Flow(4, src, dst, proto), True, l4, dend)
    sport, dport = ports(frame, proto, l4, dend)
    return Datagram(Flow(4, src, dst, proto, sport, dport), False, l4, dend)


def ipv6(frame, l3, end):
    """Step 5."""
    if end - l3 < 40:
        raise Stop("truncated_l3")
    if frame[l3] >> 4 != 6:
        raise Stop("bad_l3")
    payload, nexthdr = be16(frame, l3 + 4), frame[l3 + 6]
    if payload == 0 and nexthdr == 0:           # a jumbogram: the rest of the frame
        dend = end
    elif 40 + payload > end - l3:
        raise Stop("bad_ip_length")
    else:
        dend = l3 + 40 + payload
    src = ipaddress.IPv6Address(bytes(frame[l3 + 8:l3 + 24]))
    dst = ipaddress.IPv6Address(bytes(frame[l3 + 24:l3 + 40]))
    pos, walked = l3 + 40, 0
    while nexthdr in EXT_HEADERS:
        if walked == MAX_EXT_HEADERS:
            raise Stop("ipv6_ext_headers", limit=True)
        if dend - pos < 8:
            raise Stop("ipv6_ext_headers")
        if nexthdr == 44:
            if be16(frame, pos + 2) & 0xFFF9:   # an offset, or M: a real fragment
                return Datagram(Flow(6, src, dst, frame[pos]), True, pos, dend)
            length = 8                          # atomic: a whole datagram
        else:
            length = (frame[pos + 1] + 1) * 8
            if dend - pos < length:
                raise Stop("ipv6_ext_headers")
        nexthdr, pos, walked = frame[pos], pos + length, walked + 1
    sport, dport = ports(frame, nexthdr, pos, dend)
    return Datagram(Flow(6, src, dst, nexthdr, sport, dport), False, pos, dend)


def network(frame, etype, l3, end):
    """The datagram of an IP EtherType, or None for any other type."""
    if etype == ETH_IPV4:
        return ipv4(frame, l3, end)
    if etype == ETH_IPV6:
        return ipv6(frame, l3, end)
    return None


# ---- section 2: tunnels ----

def tunnel_kind(frame, d, cfg):
    if d.flow.proto == 17:
        return cfg.udp_ports.get(d.flow.dport)  # a fragment's ports are 0: no tunnel
    kind = IP_TUNNELS.get(d.flow.proto)
    if kind == "gre":
        return gre_kind(frame, d, cfg)
    return kind if kind in cfg.ip_tunnels else None


def gre_kind(frame, d, cfg):
    """Protocol 47 is ERSPAN or GRE by the GRE protocol field; a fragment,
    or a header too short to hold the field, is GRE."""
    if not cfg.ip_tunnels & {"gre", "erspan"}:
        return None
    if d.fragment or d.end - d.l4 < 4:
        return "gre"
    if be16(frame, d.l4 + 2) in ERSPAN_TYPES and "erspan" in cfg.ip_tunnels:
        return "erspan"
    return "gre" if "gre" in cfg.ip_tunnels else None


def erspan_header(frame, hdr, room, ptype, sequenced):
    """The length of the ERSPAN header at hdr, room octets left before
    the datagram ends: none for type I (no sequence number), 8 for type II,
    12 for type III and 8 more with its O bit."""
    if ptype == 0x22EB:
        if room < 12:
            raise Stop("truncated")
        if frame[hdr] >> 4 != 2 or (frame[hdr + 10] >> 2) & 0x1F:
            raise Stop("unsupported")
        return 12 + 8 * (frame[hdr + 11] & 1)
    if not sequenced:
        return 0
    if room < 8:
        raise Stop("truncated")
    if frame[hdr] >> 4 != 1:
        raise Stop("unsupported")
    return 8


def gtpu_header(frame, d):
    """Step 3's checks common to both GTP-U kinds: (the header's start, the
    octets left from there, its first octet, its message type)."""
    hdr, room = d.l4 + 8, d.end - d.l4 - 8
    if room < 8:
        raise Stop("truncated")
    if frame[hdr] >> 4 != 0x3:                  # version 1, PT 1
        raise Stop("unsupported")
    return hdr, room, frame[hdr], frame[hdr + 1]


def gtpu_by_tunnel(frame, d):
    """A G-PDU's or an End Marker's tunnel: the outer flow with the TEID in
    place of the ports."""
    hdr, _, _, mtype = gtpu_header(frame, d)
    if mtype not in (GTPU_G_PDU, GTPU_END_MARKER):
        raise Stop("signalling")
    f = d.flow
    return Flow(f.family, f.src, f.dst, f.proto, teid=struct.unpack_from(">I", frame, hdr + 4)[0])


def gtpu_payload(frame, d):
    """A G-PDU's datagram past the optional fields and extension headers:
    (its type by the first nibble, where it starts)."""
    hdr, room, first, mtype = gtpu_header(frame, d)
    if mtype != GTPU_G_PDU:
        raise Stop("signalling")
    length = 8
    if first & 0x07:                            # E, S or PN: 4 optional octets
        if room < 12:
            raise Stop("truncated")
        length, nxt, walked = 12, frame[hdr + 11] if first & 0x04 else 0, 0
        while nxt:
            if walked == MAX_GTPU_EXT_HEADERS:
                raise Stop("unsupported")
            if room - length < 1:
                raise Stop("truncated")
            ext = frame[hdr + length] * 4
            if not ext:
                raise Stop("malformed")
            if room - length < ext:
                raise Stop("truncated")
            nxt, length, walked = frame[hdr + length + ext - 1], length + ext, walked + 1
    if room - length < 1:
        raise Stop("truncated")
    version = frame[hdr + length] >> 4
    if version not in (4, 6):
        raise Stop("unsupported")
    return (ETH_IPV4 if version == 4 else ETH_IPV6), hdr + length


def tunnel_payload(frame, d, kind):
    """Step 3: (the payload's type, where it starts), read within the outer
    datagram."""
    room = d.end - d.l4
    if kind == "gtpu":
        return gtpu_payload(frame, d)
    if kind in UDP_TUNNELS:
        hdr = d.l4 + 8
        if room < 8 + 8:
            raise Stop("truncated")
        first = frame[hdr]
        if kind == "vxlan":
            if not first & 0x08:
                raise Stop("unsupported")
            return ETH_TEB, hdr + 8
        if first >> 6:
            raise Stop("unsupported")
        length = 8 + (first & 0x3F) * 4
        if room < 8 + length:
            raise Stop("truncated")
        return be16(frame, hdr + 2), hdr + length
    if kind in ("gre", "erspan"):
        if room < 4:
            raise Stop("truncated")
        flags, ptype = be16(frame, d.l4), be16(frame, d.l4 + 2)
        if flags & 0x4000 or flags & 0x0007:    # routing, or a version
            raise Stop("unsupported")
        length = 4 + 4 * sum(1 for bit in (0x8000, 0x2000, 0x1000) if flags & bit)
        if room < length:
            raise Stop("truncated")
        if kind == "gre":
            return ptype, d.l4 + length
        length += erspan_header(frame, d.l4 + length, room - length, ptype, flags & 0x1000)
        if room < length:
            raise Stop("truncated")
        return ETH_TEB, d.l4 + length
    return (ETH_IPV4 if kind == "ipip" else ETH_IPV6), d.l4


def fallback_of(stop):
    """Step 5: the fallback reason of an inner parse's pass reason."""
    if stop.reason in ("truncated_l2", "truncated_l3", "truncated_l4", "headers_in_frags"):
        return "truncated"
    if stop.reason in ("vlan_depth", "mpls_depth", "mpls_payload") or \
            (stop.reason == "ipv6_ext_headers" and stop.limit):
        return "unsupported"
    return "malformed"


def inner_flow(frame, d, kind):
    """The flow the tunnel carries, or raises Stop with its fallback."""
    if d.fragment:
        raise Stop("outer_fragment")
    if kind == "gtpu-teid":
        return gtpu_by_tunnel(frame, d)
    ptype, start = tunnel_payload(frame, d, kind)
    try:
        l3 = start
        if ptype == ETH_TEB:
            ptype, l3 = ethernet(frame, start, d.end)
        inner = network(frame, ptype, l3, d.end)
    except Stop as stop:
        raise Stop(fallback_of(stop)) from None
    if inner is None:
        raise Stop("unsupported")
    return inner.flow


# ---- the verdict ----

def hashed(flow, cfg):
    message = flow_hash.flow_message(flow.src, flow.dst, flow.proto, flow.sport, flow.dport,
                                     cfg.symmetric)  # a TEID's halves in the ports' place
    h = flow_hash.flow_hash(cfg.key, message, cfg.hash_fn)
    return h, h * cfg.buckets >> 32


def decide(frame, cfg):
    """The outcome for one frame, as classify --json reports it."""
    out = {"verdict": "pass", "reason": None, "cpu": None, "hash": None, "bucket": None,
           "flow": None, "tunnel": None, "outer": None, "inner_fallback": None}
    try:
        etype, l3 = ethernet(frame, 0, len(frame))
        d = network(frame, etype, l3, len(frame))
    except Stop as stop:
        out["reason"] = stop.reason
        return out
    if d is None:
        if cfg.non_ip_cpu is None:
            out["reason"] = "non_ip"
        else:
            out.update(verdict="redirect", cpu=cfg.non_ip_cpu)
        return out
    flow, kind = d.flow, tunnel_kind(frame, d, cfg)
    if kind:
        out.update(tunnel=kind, outer=d.flow)
        try:
            flow = inner_flow(frame, d, kind)
        except Stop as stop:
            out["inner_fallback"] = stop.reason
    out["hash"], out["bucket"] = hashed(flow, cfg)
    out.update(verdict="redirect", flow=flow)
    return out


def read_pcap(path):
    """The frames of a classic pcap file of Ethernet (link type 1)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    order = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">",
             b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}.get(magic)
    if order is None or struct.unpack_from(order + "I", data, 20)[0] != 1:
        raise ValueError("%s: not a pcap of Ethernet frames" % path)
    frames, at = [], 24
    while at + 16 <= len(data):
        caplen = struct.unpack_from(order + "I", data, at + 8)[0]
        frames.append(data[at + 16:at + 16 + caplen])
        at += 16 + caplen
    return frames


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    flow_hash.add_hash_options(p)
    p.add_argument("--inner", default="none", help="as cpusteer's --inner")
    p.add_argument("--non-ip", default="pass", help="pass or cpu:N")
    p.add_argument("pcap")
    a = p.parse_args()
    cfg = Config(a.key, a.hash, a.symmetric, a.buckets, a.inner, a.non_ip)
    packets = []
    for n, frame in enumerate(read_pcap(a.pcap), 1):
        out = decide(frame, cfg)
        for field in ("flow", "outer"):
            out[field] = out[field].as_json() if out[field] else None
        packets.append(dict(index=n, length=len(frame), **out))
    json.dump({"packets": packets}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
