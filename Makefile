# cpusteer: one Makefile, everything generated goes to build/.
#   make            build build/cpusteer, build/cpusteer-bench and the BPF
#                   objects
#   make test       build, then run every selftest (needs root)
#   make test-kernels  the selftests on Debian 12's 6.12, 6.12-rt, 6.1 and
#                   6.1-rt kernels under QEMU (the 6.1 ones a short suite;
#                   KERNEL_SET=6.1 boots only those, with the full suite);
#                   KERNEL=a.deb boots another package
#   make vmlinux    regenerate vmlinux.h from the running kernel's BTF
#   make man        rewrite the SYNOPSIS of cpusteer.8 and cpusteer-bench.8
#                   from the option tables
#   make install    both binaries, their man pages and bash completions, the
#                   systemd units cpusteer@.service and cpusteer-exporter.service, the
#                   tmpfiles.d entry of the state folder, an example
#                   configuration, and the Prometheus rules and Grafana
#                   dashboard of dist/prometheus under
#                   $(DESTDIR)$(PREFIX) (PREFIX=/usr/local); make uninstall
#   make setup      install the Debian packages the build and tests need
#   make run        the main job (needs root)
#   make clean      remove build/
#   V=1             show the full commands

OUT      := build
CLANG    ?= clang
BPFTOOL  ?= bpftool
CC       ?= cc
ARCH     := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
              -Iinclude -Ibpf -I.
CFLAGS   ?= -O2 -g
# loader/ and its subfolders (see ARCHITECTURE.md); headers are included
# by their bare names from any of them.
LOADER_DIRS := loader $(sort $(patsubst %/,%,$(wildcard loader/*/)))
CFLAGS   += -Wall -Wextra -Werror -std=gnu11 -Iinclude -I$(OUT) $(addprefix -I,$(LOADER_DIRS))
LDLIBS   := $(shell pkg-config --libs libxdp libbpf 2>/dev/null || echo -lxdp -lbpf -lelf -lz) -lpcap -lm \
            $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)

# What the build is, for `cpusteer version` and the exporter's
# cpusteer_build_info (loader/lib/version.c): the version as
# debian/changelog gives it, the one place it is written, so that the
# binary and the package cannot disagree; the commit ("-dirty" with
# changes not committed); the BPF compiler; the libraries' versions
# built against. Written when the Makefile is read, and only when it
# differs, so that a new commit rebuilds version.o and nothing else.
CPUSTEER_VERSION := $(shell awk 'NR == 1 { gsub(/[()]/, "", $$2); print $$2 }' debian/changelog)
CPUSTEER_COMMIT  := $(shell c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && \
			{ git diff-index --quiet HEAD -- 2>/dev/null || c=$$c-dirty; echo $$c; } || \
			echo unknown)
BUILD_VERSION_H  := $(OUT)/build_version.h
define BUILD_VERSION
#define CPUSTEER_VERSION "$(CPUSTEER_VERSION)"
#define CPUSTEER_COMMIT "$(CPUSTEER_COMMIT)"
#define CPUSTEER_BPF_COMPILER "$(shell $(CLANG) --version 2>/dev/null | head -n 1 | tr -d '"\\')"
#define CPUSTEER_LIBBPF_BUILT "$(shell pkg-config --modversion libbpf 2>/dev/null || echo unknown)"
#define CPUSTEER_LIBXDP_BUILT "$(shell pkg-config --modversion libxdp 2>/dev/null || echo unknown)"
endef
$(shell mkdir -p $(OUT))
$(file >$(BUILD_VERSION_H).new,$(BUILD_VERSION))
$(shell cmp -s $(BUILD_VERSION_H).new $(BUILD_VERSION_H) || cp $(BUILD_VERSION_H).new $(BUILD_VERSION_H); \
	rm -f $(BUILD_VERSION_H).new)

BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
SKELS      := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))
LOADER_SRCS := $(wildcard $(addsuffix /*.c,$(LOADER_DIRS)))
LOADER_OBJS := $(patsubst %.c,$(OUT)/%.o,$(LOADER_SRCS))
TEST_PROGS := $(patsubst selftests/%.c,$(OUT)/selftests/%,$(wildcard selftests/test_*.c))
TEST_TOOLS := $(patsubst selftests/tools/%.c,$(OUT)/selftests/tools/%,$(wildcard selftests/tools/*.c))
# XDP programs of other users, which network tests attach beside cpusteer.
TEST_BPF_OBJS := $(patsubst selftests/bpf/%.bpf.c,$(OUT)/selftests/%.bpf.o,$(wildcard selftests/bpf/*.bpf.c))
# Two programs (ARCHITECTURE.md): cpusteer, the operator's, links every
# loader object outside loader/bench/; cpusteer-bench links loader/bench/
# and, from an archive of the others but cpusteer's main, what it uses.
BENCH_OBJS := $(filter $(OUT)/loader/bench/%,$(LOADER_OBJS))
OPERATOR_OBJS := $(filter-out $(BENCH_OBJS),$(LOADER_OBJS))
SHARED_LIB := $(OUT)/libcpusteer.a
MAINS      := $(OUT)/loader/main.o $(OUT)/loader/bench/bench_main.o
PROGRAMS   := cpusteer cpusteer-bench
# Everything in loader/ except the two mains links into the selftests too.
LIB_OBJS   := $(filter-out $(MAINS),$(LOADER_OBJS))

# Every compile writes the headers its file includes to a .d file beside
# what it makes (-MMD; -MP, so that a header removed from the tree does
# not stop the build), and make reads them back: a header change rebuilds
# what includes it, and nothing else. A skeleton is generated, so before
# the first build no .d names it: whatever compiles C waits for the
# skeletons (an order-only prerequisite), and from then on its .d says
# which skeleton it includes. What is compiled depends on this Makefile
# too, which holds its flags: an output made before the flags said -MMD
# has no .d, and is made again.
DEPFLAGS   := -MMD -MP
DEPS       := $(addsuffix .d,$(basename $(BPF_OBJS) $(TEST_BPF_OBJS) $(LOADER_OBJS)) \
			 $(TEST_PROGS) $(TEST_TOOLS))

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SECONDARY: $(BPF_OBJS) $(SKELS)
.PHONY: all layers test test-kernels clean vmlinux man setup run help install uninstall

all: layers $(addprefix $(OUT)/,$(PROGRAMS) $(addsuffix .bash,$(PROGRAMS))) $(TEST_PROGS) $(TEST_TOOLS) $(TEST_BPF_OBJS)

# Which loader folder may include which (ARCHITECTURE.md).
layers:
	$(Q)scripts/check-layers.sh

help:
	@sed -n '2,/^$$/s/^# \{0,1\}//p' Makefile

$(OUT) $(OUT)/selftests $(OUT)/selftests/tools:
	$(Q)mkdir -p $@

$(OUT)/%.bpf.o: bpf/%.bpf.c Makefile | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUT)/selftests/%.bpf.o: selftests/bpf/%.bpf.c Makefile | $(OUT)/selftests
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

# The skeleton is named after the object, so it reads `struct steer`
# (and a test object's `struct hash_sweep`).
$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(notdir $*) > $@

$(OUT)/loader/%.o: loader/%.c Makefile | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUT)/cpusteer: $(OPERATOR_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(SHARED_LIB): $(filter-out $(MAINS),$(OPERATOR_OBJS))
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(OUT)/cpusteer-bench: $(BENCH_OBJS) $(SHARED_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(OUT)/selftests/%: selftests/%.c Makefile $(LIB_OBJS) | $(SKELS) $(OUT)/selftests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) -Iselftests $< $(TEST_OBJS) $(LIB_OBJS) -o $@ $(LDLIBS)

# The distribution tests hash their flow sets with bpf/hash.h in a test
# object (selftests/bpf/hash_sweep.bpf.c).
$(OUT)/selftests/test_hash_distribution: | $(OUT)/selftests/hash_sweep.skel.h

# The counter registry is checked against the counters' BTF, which a test
# object holds (selftests/bpf/counters_layout.bpf.c).
$(OUT)/selftests/test_counters: $(OUT)/selftests/counters_layout.skel.h

# The program tests of the steering object, test_steer_*, share a fixture
# (an instance configured as the commands configure one, frames run
# through it): compiled once, linked into each of them as TEST_OBJS.
STEER_FIXTURE := $(OUT)/selftests/steer_fixture.o
STEER_TESTS   := $(filter $(OUT)/selftests/test_steer_%,$(TEST_PROGS))
DEPS          += $(STEER_FIXTURE:.o=.d)

$(STEER_FIXTURE): selftests/steer_fixture.c Makefile | $(SKELS) $(OUT)/selftests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Iselftests -c $< -o $@

$(STEER_TESTS): $(STEER_FIXTURE)
$(STEER_TESTS): private TEST_OBJS := $(STEER_FIXTURE)

# Small programs the network tests drive (senders, receivers). Those
# that do what the loader already does link its objects, like the C
# selftests, rather than keep copies of its code.
LINKED_TOOLS := $(addprefix $(OUT)/selftests/tools/,bench_chart counter_keys kernel_log_kinds \
                  napi_show udp_flows)

$(LINKED_TOOLS): $(OUT)/selftests/tools/%: selftests/tools/%.c Makefile $(LIB_OBJS) | $(OUT)/selftests/tools
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS)

$(OUT)/selftests/tools/%: selftests/tools/%.c Makefile | $(OUT)/selftests/tools
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) $< -o $@

include $(wildcard $(DEPS))

# The build before a test run takes every CPU, unless make was given its
# own -j (the jobserver then shares them).
BUILD_JOBS := $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc))

test: setup
	$(Q)$(MAKE) --no-print-directory $(BUILD_JOBS) all
	$(Q)selftests/run.sh

setup:
	$(Q)scripts/setup.sh

# The kernel guests' PID 1 (selftests/kernels/guest_init.c): static, since
# the initramfs it runs from holds no libraries.
$(OUT)/kernels/guest_init: selftests/kernels/guest_init.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -static -O2 -Wall -Wextra -Werror -o $@ $<

# Fetching the kernel packages belongs to setup; the suite itself runs in
# each guest against this build, and against the other compilers' builds,
# made here because compiling under emulation takes many minutes.
test-kernels:
	$(Q)scripts/setup.sh --kernels $(if $(KERNEL),,$(OUT)/kernels/debs)
	$(Q)$(MAKE) --no-print-directory $(BUILD_JOBS) all $(OUT)/kernels/guest_init
	$(Q)selftests/test_compilers.sh --build
	$(Q)selftests/kernels/run.sh

# The main job: the live demo on a namespaced veth pair it creates and
# removes itself (DURATION seconds of traffic, default 20).
DURATION ?= 20
run: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(OUT)/cpusteer-bench demo --duration $(DURATION)

# A SYNOPSIS comes from the same declarations as the parser and --help;
# a selftest fails when a committed page differs from them. Each program
# has its page, PROGRAM.8.
man: $(addprefix $(OUT)/,$(PROGRAMS))
	$(Q)for p in $(PROGRAMS); do \
		$(OUT)/$$p --man-synopsis > $(OUT)/synopsis.roff && \
		awk -v synopsis=$(OUT)/synopsis.roff ' \
			/^\.SH SYNOPSIS/ { print; while ((getline line < synopsis) > 0) print line; skip = 1; next } \
			/^\.SH / { skip = 0 } \
			!skip' $$p.8 > $(OUT)/$$p.8 && \
		mv $(OUT)/$$p.8 $$p.8 || exit 1; \
	done

# Made from the option tables, like the SYNOPSIS.
$(addprefix $(OUT)/,$(addsuffix .bash,$(PROGRAMS))): $(OUT)/%.bash: $(OUT)/%
	$(call msg,GEN,$@)
	$(Q)$(OUT)/$* --bash-completion > $@

# The BPF objects are in the binaries (skeletons): nothing else to install.
# The units read their configuration from SYSCONFDIR, /etc whatever the
# PREFIX, since that is where a service's files are looked for; UNITDIR
# under /usr/local is one systemd also searches.
PREFIX     ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR    ?= $(PREFIX)/lib/systemd/system
# The units, made from dist/UNIT.in with the paths of this install.
UNITS      := cpusteer@.service cpusteer-exporter.service
# systemd-tmpfiles reads $(PREFIX)/lib/tmpfiles.d for /usr and /usr/local.
TMPFILES   := $(DESTDIR)$(PREFIX)/lib/tmpfiles.d/cpusteer.conf
# The rules and dashboard are read in place (rule_files, dashboard
# provisioning), so they live in share/, not share/doc/, which may be left out.
PROMETHEUS := $(DESTDIR)$(PREFIX)/share/cpusteer/prometheus
PROMETHEUS_FILES := cpusteer-rules.yml cpusteer-dashboard.json
INSTALLED  := $(foreach p,$(PROGRAMS),$(DESTDIR)$(PREFIX)/sbin/$(p) \
		$(DESTDIR)$(PREFIX)/share/man/man8/$(p).8 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$(p)) \
	      $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS)) \
	      $(TMPFILES) \
	      $(DESTDIR)$(PREFIX)/share/doc/cpusteer/examples/IFACE.conf \
	      $(addprefix $(PROMETHEUS)/,$(PROMETHEUS_FILES))

install: $(addprefix $(OUT)/,$(PROGRAMS) $(addsuffix .bash,$(PROGRAMS)))
	$(Q)for p in $(PROGRAMS); do \
		install -D -m 0755 $(OUT)/$$p $(DESTDIR)$(PREFIX)/sbin/$$p && \
		install -D -m 0644 $$p.8 $(DESTDIR)$(PREFIX)/share/man/man8/$$p.8 && \
		install -D -m 0644 $(OUT)/$$p.bash \
			$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$p || exit 1; \
	done
	$(Q)for unit in $(UNITS); do \
		sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
			dist/$$unit.in > $(OUT)/$$unit && \
		install -D -m 0644 $(OUT)/$$unit $(DESTDIR)$(UNITDIR)/$$unit || exit 1; \
	done
	$(Q)install -D -m 0644 dist/example.conf $(DESTDIR)$(PREFIX)/share/doc/cpusteer/examples/IFACE.conf
	$(Q)install -D -m 0644 dist/cpusteer.tmpfiles $(TMPFILES)
	$(Q)install -D -m 0644 -t $(PROMETHEUS) $(addprefix dist/prometheus/,$(PROMETHEUS_FILES))
# The state folder now, as at every boot, on a machine that is the target
# (no DESTDIR) and has bpffs mounted; a package's postinst does the same.
	$(Q)if [ -z "$(DESTDIR)" ] && mountpoint -q /sys/fs/bpf && command -v systemd-tmpfiles >/dev/null; then \
		systemd-tmpfiles --create $(TMPFILES); \
	fi

uninstall:
	$(Q)rm -f $(INSTALLED)
	$(Q)rmdir --ignore-fail-on-non-empty $(DESTDIR)$(PREFIX)/share/doc/cpusteer/examples \
		$(DESTDIR)$(PREFIX)/share/doc/cpusteer $(PROMETHEUS) $(DESTDIR)$(PREFIX)/share/cpusteer

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux.h

clean:
	$(Q)rm -rf $(OUT)
