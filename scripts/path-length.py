#!/usr/bin/env python3
# Counts the BPF instructions the kernel's *xlated* program (the verifier's
# rewrite, with inlined map lookups and patched calls) executes for one
# frame: the README's per-path instruction counts, measured by running that
# code instead of following a `bpftool prog dump xlated` listing by hand.
#
# It interprets the raw image of `bpftool prog dump xlated ... file F`, the
# struct bpf_insn array of BPF_OBJ_GET_INFO_BY_FD, where ld_imm64 carries map
# ids (src_reg 1: the map; 2: its value + the second slot's imm) and a helper
# call's imm is an offset from __bpf_call_base. The model, and why:
#  - ctx is a fake struct xdp_buff (offsets from the kernel's BTF); the frame
#    follows 256 bytes of headroom, data_meta = data; rxq/txq->dev is zeroed.
#  - maps are laid out as the inlined lookups expect: array values start
#    sizeof(struct bpf_array) past the map pointer, where a per-CPU array
#    keeps pointers to its values (one CPU). Array entries hold the live
#    map's bytes, looked up when first touched; --map NAME[[IDX]][+OFF]=HEX
#    then writes bytes into entry IDX (default 0) at offset OFF.
#  - calls are named from the text dump (else /proc/kallsyms, as bpftool
#    does) and faked: *redirect* -> 4, *lookup_elem -> a value of the map in
#    r1, *get_buff_len -> frame length, *xdp_load_bytes copies, others -> 0
#    with a warning; --call NAME=VALUE overrides. r1-r5 are then zeroed.
#  - bpf-to-bpf calls follow the callee offset the kernel leaves in `off` of a
#    JIT-ed program (an interpreted program's calls are not supported).
# "slots" numbers instructions as bpftool does (ld_imm64 = 2); the figure in
# parentheses counts each once; a call is one. An access outside every
# modelled region stops the run: it means the model, not the program, is off.
#
# Usage (root, bpftool; the program's maps must still be loaded):
#   scripts/path-length.py --pinned /sys/fs/bpf/plx/cpusteer_notouch --frame 00 \
#       --map config_map+16=00020000 [--trace] [--call cpu_map_redirect=0]
#   scripts/path-length.py --prog-id 42 --frame "$(cat udp4.hex)" --map config_map=<32 bytes hex>
#   bpftool prog dump xlated id 42 file x.bin; bpftool prog dump xlated id 42 > x.txt
#   scripts/path-length.py --xlated x.bin --text x.txt --frame ...
import argparse, bisect, json, re, struct, subprocess, sys, tempfile

M64, M32 = (1 << 64) - 1, (1 << 32) - 1
ACTIONS = {0: 'XDP_ABORTED', 1: 'XDP_DROP', 2: 'XDP_PASS', 3: 'XDP_TX', 4: 'XDP_REDIRECT'}
SIZES = {0x00: 4, 0x08: 2, 0x10: 1, 0x18: 8}
# add, or, and, xor, each with fetch too; xchg; cmpxchg
ATOMICS = (0x00, 0x01, 0x40, 0x41, 0x50, 0x51, 0xa0, 0xa1, 0xe1, 0xf1)
STACK, FRAMES, HEADROOM, MAX_STEPS = 512, 8, 256, 1_000_000


def die(msg):
    sys.exit(f'path-length: {msg}')


def warn(msg):
    print(f'path-length: warning: {msg}', file=sys.stderr)


def bpftool(*args, js=True):
    out = subprocess.run(['bpftool', *(['-j'] if js else []), *args], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f'bpftool {" ".join(args)}: {out.stderr.strip()}')
    return json.loads(out.stdout) if js else out.stdout


def btf_struct(btf, name, size, fields):
    """(size, {field: byte offset}) of a kernel struct, or the defaults."""
    m = re.search(rf"^\[\d+\] STRUCT '{name}' size=(\d+) vlen=\d+\n((?:\t.*\n)*)", btf, re.M)
    if not m:
        return size, fields
    found = {f: int(b) // 8 for f, b in re.findall(r"'(\w+)' type_id=\d+ bits_offset=(\d+)", m[2])}
    return int(m[1]), {f: found.get(f, off) for f, off in fields.items()}


def hexbytes(text, what):
    try:
        return bytes.fromhex(re.sub(r'[\s:]', '', text))
    except ValueError:
        die(f'{what}: not hex bytes: {text!r}')


def sext(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


class Memory:
    """Sparse bytes, zero until written, valid only inside a region; a
    region's `fill(offset, n)` may supply its bytes when first touched."""
    def __init__(self):
        self.bases, self.regions, self.bytes, self.next = [], [], {}, 0x100000000

    def add(self, size, fill=None):
        base, self.next = self.next, self.next + ((size + 0x1ffff) & ~0xffff)  # gaps catch overruns
        self.bases.append(base)
        self.regions.append((base, size, fill))
        return base

    def check(self, addr, n, pc):
        i = bisect.bisect_right(self.bases, addr) - 1
        base, size, fill = self.regions[i] if i >= 0 else (0, 0, None)
        if addr + n > base + size:
            die(f'pc {pc}: {n}-byte access at {addr:#x} is outside every modelled region')
        if fill:
            fill(addr - base, n)

    def read(self, addr, n, pc=-1):
        self.check(addr, n, pc)
        return int.from_bytes(bytes(self.bytes.get(addr + i, 0) for i in range(n)), 'little')

    def write(self, addr, n, val, pc=-1):
        self.put(addr, (val & ((1 << 8 * n) - 1)).to_bytes(n, 'little'), pc)

    def put(self, addr, data, pc=-1):
        self.check(addr, len(data), pc)
        self.bytes.update((addr + i, b) for i, b in enumerate(data))


class Map:
    """A map as the xlated code sees it: `obj` is what ld_imm64 src_reg 1
    loads, `values` is entry 0. Array entries hold the live map's bytes,
    looked up when first touched (a frozen .rodata, the bucket table)."""
    def __init__(self, mem, mid, value_off):
        try:
            info = bpftool('map', 'show', 'id', str(mid))
        except RuntimeError as e:
            die(f'{e}: the program\'s maps must be loaded')
        self.mem, self.id, self.name, self.type = mem, mid, info['name'], info['type']
        self.entries, self.value_size = max(1, info['max_entries']), info['bytes_value']
        self.elem, self.loaded = (self.value_size + 7) & ~7, set()
        live = self.fill if self.type in ('array', 'percpu_array') else None
        if self.type == 'array':
            self.obj = mem.add(value_off + self.elem * self.entries, live)
            self.values, self.start = self.obj + value_off, value_off
        else:
            slots = self.entries if self.type == 'percpu_array' else 0
            self.obj = mem.add(value_off + 8 * slots)
            self.values, self.start = mem.add(self.elem * self.entries, live), 0
            for i in range(slots):
                mem.write(self.obj + value_off + 8 * i, 8, self.value(i))

    def fill(self, off, n):
        first, last = (off - self.start) // self.elem, (off + n - 1 - self.start) // self.elem
        for i in range(max(first, 0), last + 1):
            if i in self.loaded or i >= self.entries:
                continue
            self.loaded.add(i)
            try:
                v = bpftool('map', 'lookup', 'id', str(self.id), 'key', *map(str, i.to_bytes(4, 'little')))
                v = bytes(int(b, 16) for b in v.get('value') or v['values'][0]['value'])
                self.mem.bytes.update((self.value(i) + j, b) for j, b in enumerate(v))
            except (RuntimeError, KeyError, IndexError) as e:
                warn(f'map {self.name}: entry {i} left zero ({e})')

    def value(self, index):
        return self.values + index * self.elem if index < self.entries else 0


def load(args):
    """(image, {pc: text dump line}) of a loaded program or from files."""
    text = open(args.text).read() if args.text else ''
    if args.xlated:
        image = open(args.xlated, 'rb').read()
    else:
        spec = ['id', str(args.prog_id)] if args.prog_id else ['pinned', args.pinned]
        with tempfile.NamedTemporaryFile() as f:
            bpftool('prog', 'dump', 'xlated', *spec, 'file', f.name, js=False)
            image = open(f.name, 'rb').read()
        text = bpftool('prog', 'dump', 'xlated', *spec, js=False)
    if not image or len(image) % 8:
        die('the image is not an array of 8-byte instructions')
    return image, {int(m[1]): m[0] for m in re.finditer(r'^\s*(\d+): \([0-9a-f]{2}\) .*$', text, re.M)}


def call_names(insns, lines):
    """pc -> callee of each helper or kfunc call."""
    names, syms = {}, None
    for pc, (code, dst, src, off, imm) in enumerate(insns):
        if code != 0x85 or src == 1:
            continue
        m = re.search(r'call ([A-Za-z_][\w.]*)', lines.get(pc, ''))
        if m and m[1] != 'unknown':
            names[pc] = m[1]
            continue
        if syms is None:
            try:
                syms = {int(a, 16): n for a, _, n, *_ in map(str.split, open('/proc/kallsyms'))}
            except OSError:
                syms = {}
            base = next((a for a, n in syms.items() if n == '__bpf_call_base'), None)
        names[pc] = syms.get(base + imm, f'unknown#{imm}') if base else f'unknown#{imm}'
    return names


def helper(name, pc, regs, insns, env):
    """A plausible return value for a call the xlated code still makes."""
    n, mem, frame = name.lower(), env['mem'], env['frame']
    if n in env['overrides']:
        return env['overrides'][n]
    if 'redirect' in n:
        return 4
    if 'lookup_elem' in n:
        m = env['map_at'].get(regs[1])
        if m is None:
            warn(f'pc {pc}: {name} on an unknown map returns 0')
            return 0
        val = m.value(mem.read(regs[2], 4, pc) if m.type in ('array', 'percpu_array') else 0)
        # An inlined hash lookup calls __htab_map_lookup_elem, tests r0 and
        # adds the value's offset in the element: aim the sum at the value.
        if val and pc + 2 < len(insns) and insns[pc + 1][:2] == (0x15, 0) and insns[pc + 2][:2] == (0x07, 0):
            val -= insns[pc + 2][4]
        return val
    if 'get_buff_len' in n:
        return len(frame)
    if 'xdp_load_bytes' in n:
        off, size = regs[2] & M32, regs[4] & M32
        if off + size > len(frame):
            return -14  # -EFAULT
        mem.put(regs[3], frame[off:off + size], pc)
        return 0
    if 'smp_processor_id' not in n:
        warn(f'pc {pc}: call {name} faked to return 0')
    return 0


def alu(op, a, b, off, bits):
    mask = (1 << bits) - 1
    a, b = a & mask, b & mask
    if op in (0x30, 0x90) and off == 1:  # sdiv, smod (cpuv4): truncating
        sa, sb = sext(a, bits), sext(b, bits)
        if sb == 0:
            return 0 if op == 0x30 else a
        q = abs(sa) // abs(sb) * (-1 if (sa < 0) != (sb < 0) else 1)
        return (q if op == 0x30 else sa - sb * q) & mask
    sh = b & (bits - 1)
    fns = {0x00: lambda: a + b, 0x10: lambda: a - b, 0x20: lambda: a * b, 0x30: lambda: a // b if b else 0,
           0x40: lambda: a | b, 0x50: lambda: a & b, 0x60: lambda: a << sh, 0x70: lambda: a >> sh,
           0x80: lambda: -a, 0x90: lambda: a % b if b else a, 0xa0: lambda: a ^ b, 0xb0: lambda: b,
           0xc0: lambda: sext(a, bits) >> sh}
    return fns[op]() & mask


def taken(op, a, b, bits):
    sa, sb = sext(a, bits), sext(b, bits)
    table = {0x10: a == b, 0x20: a > b, 0x30: a >= b, 0x40: bool(a & b), 0x50: a != b, 0x60: sa > sb,
             0x70: sa >= sb, 0xa0: a < b, 0xb0: a <= b, 0xc0: sa < sb, 0xd0: sa <= sb}
    return table[op]


def run(insns, env, trace, lines, names):
    """(instructions, slots, r0) of the path from pc 0 to the main exit."""
    mem, regs, frames = env['mem'], [0] * 11, []
    regs[1], regs[10] = env['ctx'], env['stack_top']
    pc = slots = steps = 0
    done = False
    while not done:
        if steps >= MAX_STEPS:
            die(f'no exit after {MAX_STEPS} instructions')
        if not 0 <= pc < len(insns):
            die(f'pc {pc} is outside the program')
        code, dst, src, off, imm = insns[pc]
        cls, op, here, shown = code & 7, code & 0xf0, pc, dst
        steps, slots, pc = steps + 1, slots + 1, pc + 1
        try:
            if cls in (4, 7):  # ALU, ALU64
                bits = 64 if cls == 7 else 32
                if op == 0xd0:  # byte swap; to_le only truncates on a little-endian target
                    v = (regs[dst] & ((1 << imm) - 1)).to_bytes(imm // 8, 'little')
                    regs[dst] = int.from_bytes(v, 'big' if cls == 7 or code & 8 else 'little')
                elif op == 0xb0 and code & 8 and off in (8, 16, 32):  # movsx
                    regs[dst] = sext(regs[src], off) & ((1 << bits) - 1)
                else:  # a mov with off -1 (per-CPU address) or 1 (addr_space_cast) is a plain mov
                    regs[dst] = alu(op, regs[dst], regs[src] if code & 8 else imm & M64, off, bits)
            elif cls in (5, 6):  # JMP, JMP32
                shown = None
                if op == 0x00:  # ja; gotol in JMP32 takes imm
                    pc += imm if cls == 6 else off
                elif op == 0x90:  # exit
                    done = not frames
                    if frames:
                        pc, regs[6:11] = frames.pop()
                        shown = 0
                elif op == 0x80 and src == 1:  # bpf-to-bpf call: own stack frame, r6-r9 kept
                    if len(frames) + 1 >= FRAMES:
                        die(f'pc {here}: calls nest deeper than {FRAMES}')
                    frames.append((pc, regs[6:11]))
                    regs[10] -= STACK
                    pc += off
                elif op == 0x80:
                    regs[0] = helper(names[here], here, regs, insns, env) & M64
                    regs[1:6], shown = [0] * 5, 0
                elif op != 0xe0:  # not may_goto, whose budget never runs out here
                    mask = M64 if cls == 5 else M32
                    b = regs[src] if code & 8 else imm
                    pc += off if taken(op, regs[dst] & mask, b & mask, 64 if cls == 5 else 32) else 0
            elif code == 0x18:  # ld_imm64, two slots
                lo, hi = imm & M32, insns[pc][4] & M32
                m = env['maps'].get(lo) if src in (1, 2) else None
                regs[dst] = (m.obj if src == 1 else m.values + hi) if m else lo | hi << 32
                pc, slots = pc + 1, slots + 1
            elif cls == 1 and code & 0xe0 in (0x60, 0x80):  # LDX MEM, MEMSX
                size = SIZES[code & 0x18]
                v = mem.read((regs[src] + off) & M64, size, here)
                regs[dst] = sext(v, 8 * size) & M64 if code & 0xe0 == 0x80 else v
            elif cls in (2, 3) and code & 0xe0 == 0x60:  # ST, STX MEM
                mem.write((regs[dst] + off) & M64, SIZES[code & 0x18], imm if cls == 2 else regs[src], here)
                shown = None
            elif cls == 3 and code & 0xe0 == 0xc0 and imm in ATOMICS:
                size, addr, shown = SIZES[code & 0x18], (regs[dst] + off) & M64, None
                old = mem.read(addr, size, here)
                if imm == 0xf1:  # cmpxchg
                    if old == regs[0] & ((1 << 8 * size) - 1):
                        mem.write(addr, size, regs[src], here)
                    regs[0], shown = old, 0
                else:
                    new = regs[src] if imm == 0xe1 else alu(imm & 0xf0, old, regs[src], 0, 8 * size)
                    mem.write(addr, size, new, here)
                    if imm & 1:  # fetch
                        regs[src], shown = old, src
            else:
                raise KeyError(code)
        except KeyError:
            die(f'pc {here}: opcode {code:#04x} (off {off}, imm {imm:#x}) is not supported')
        if trace:
            text = lines.get(here, f'{here:5d}: ({code:02x}) dst r{dst} src r{src} off {off} imm {imm}')
            print(f'{text:<60} ; r{shown} = {regs[shown]:#x}' if shown is not None else text)
    return steps, slots, regs[0]


def main():
    p = argparse.ArgumentParser(description='Instructions the xlated BPF program executes for one frame.')
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument('--prog-id', type=int, help='a loaded program, by id')
    src.add_argument('--pinned', help='a loaded program, by pin path')
    src.add_argument('--xlated', help='raw image from `bpftool prog dump xlated ... file F`')
    p.add_argument('--text', help='with --xlated: its text dump, for call names and --trace')
    p.add_argument('--frame', required=True, help='the frame in hex (spaces and colons allowed)')
    p.add_argument('--map', action='append', default=[], metavar='NAME[[IDX]][+OFF]=HEX',
                   help='write bytes into entry IDX (default 0) of a map, by name or id, at offset OFF')
    p.add_argument('--call', action='append', default=[], metavar='NAME=VALUE',
                   help='return VALUE from calls to NAME instead of the default')
    p.add_argument('--trace', action='store_true', help='print every executed instruction')
    args = p.parse_args()

    image, lines = load(args)
    insns = [(c, r & 0xf, r >> 4, o, i) for c, r, o, i in struct.iter_unpack('<BBhi', image)]
    frame = hexbytes(args.frame, '--frame')
    try:
        btf = bpftool('btf', 'dump', 'file', '/sys/kernel/btf/vmlinux', js=False)
    except (RuntimeError, OSError) as e:
        btf = warn(f'no kernel BTF ({e}); assuming the struct layouts of 6.x') or ''
    mem = Memory()
    array_size, _ = btf_struct(btf, 'bpf_array', 312, {})
    xb_size, xb = btf_struct(btf, 'xdp_buff', 56, {'data': 0, 'data_end': 8, 'data_meta': 16,
                                                   'data_hard_start': 24, 'rxq': 32, 'txq': 40})
    env = {'mem': mem, 'maps': {}, 'map_at': {}, 'frame': frame, 'overrides': {}}
    env['stack_top'] = mem.add(STACK * FRAMES) + STACK * FRAMES
    env['ctx'] = ctx = mem.add(xb_size)
    hard_start = mem.add(HEADROOM + len(frame))
    data = hard_start + HEADROOM
    mem.put(data, frame)
    netdev = mem.add(btf_struct(btf, 'net_device', 4096, {})[0])
    rxq, txq = mem.add(btf_struct(btf, 'xdp_rxq_info', 64, {})[0]), mem.add(8)
    mem.write(rxq, 8, netdev), mem.write(txq, 8, netdev)  # both start with `dev`
    for field, val in (('data', data), ('data_end', data + len(frame)), ('data_meta', data),
                       ('data_hard_start', hard_start), ('rxq', rxq), ('txq', txq)):
        mem.write(ctx + xb[field], 8, val)

    for code, dst, src, off, imm in insns:  # every map the program names
        if code == 0x18 and src in (1, 2) and imm not in env['maps']:
            env['maps'][imm] = m = Map(mem, imm, array_size)
            env['map_at'][m.obj] = m
    for spec in args.map:
        m = re.fullmatch(r'([^=+\[]+)(?:\[(\d+)\])?(?:\+(\d+))?=([0-9a-fA-F:\s]*)', spec)
        maps = env['maps'].values()
        target = m and next((x for x in maps if m[1] in (x.name, str(x.id))), None)
        if not target:
            die(f'--map {spec}: no such map; the program has ' + ', '.join(x.name for x in maps))
        value, idx, at = hexbytes(m[4], f'--map {spec}'), int(m[2] or 0), int(m[3] or 0)
        if at + len(value) > target.value_size or idx >= target.entries:
            die(f'--map {spec}: past entry {target.entries - 1} or its {target.value_size} bytes')
        mem.put(target.value(idx) + at, value)
    for spec in args.call:
        name, _, val = spec.partition('=')
        env['overrides'][name.lower()] = int(val, 0)

    steps, slots, r0 = run(insns, env, args.trace, lines, call_names(insns, lines))
    r0 = sext(r0, 64)
    print(f'xlated: {len(insns)} slots ({len(image)} bytes)')
    print(f'path: {slots} slots executed ({steps} instructions, ld_imm64 counted once)')
    print(f'r0 = {r0} ({ACTIONS.get(r0, "?")})')


if __name__ == '__main__':
    main()
