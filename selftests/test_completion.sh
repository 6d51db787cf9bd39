#!/usr/bin/env bash
# The bash completion of each program (build/PROGRAM.bash, made from the
# option tables) offers exactly what each command accepts: each form of
# a command (bench and bench --program) its own options, every option
# its --help lists and none it does not; every value it offers for an
# option, fed back to the program, is accepted; and what --help shows as
# an option's fixed values is what it offers.
#
# A word is fed back as `PROGRAM COMMAND [FORM] --OPTION VALUE --help`:
# the parser checks each option and its value as it reaches it, in
# order, and acts on none; so --help, last, is reached (exit status 0)
# only when the option and its value were accepted, and nothing runs.
#
# Not in kernel runs: no kernel in it, only bash
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

t_tmpdir
COMPOPT=$T_TMP/compopt

# The completions bash would offer for the command line PROGRAM WORDS...,
# the last being the word under the cursor, one per line, in order. Each
# word is split at ':' as bash splits it (COMP_WORDBREAKS), and what
# compopt was asked is left in $COMPOPT.
complete_words() {	# PROGRAM WORDS...
	local script=$TU_TOP/build/$1.bash

	: >"$COMPOPT"
	bash -c '. "$1" || exit 1; out=$2; shift 2
		 compopt() { echo "$*" >>"$out"; }
		 COMP_WORDS=()
		 for w in "$@"; do
			while [[ $w == *:* ]]; do
				COMP_WORDS+=("${w%%:*}" :)
				w=${w#*:}
			done
			[ -n "$w" ] || [ "${COMP_WORDS[-1]}" != : ] && COMP_WORDS+=("$w")
		 done
		 COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		 fn=$(complete -p "$1" | awk "{ print \$3 }") && "$fn"
		 [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' _ "$script" "$COMPOPT" "$@"
}

# The commands of PROGRAM, from its --help.
commands_of() {	# PROGRAM
	"$TU_TOP/build/$1" --help | awk '/^  [a-z]/ { print $1 }'
}

# The forms of COMMAND: "" for the command itself, then "--FLAG" for each
# other form its --help shows ("usage: PROGRAM COMMAND --FLAG ...").
forms_of() {	# PROGRAM COMMAND
	echo ""
	"$TU_TOP/build/$1" "$2" --help |
		sed -n "s/^usage: $1 $2 \(--[a-z-]*\) .*/\1/p"
}

# The option lines ("--NAME VALUE" or "--NAME") of one form's --help, the
# part under its own usage line.
help_options() {	# PROGRAM COMMAND FORM
	"$TU_TOP/build/$1" "$2" --help |
		awk -v cmd="$2" -v form="$3" '
			/^usage: / { mine = $3 == cmd && (form == "" ? $4 !~ /^--/ : $4 == form) }
			mine' |
		sed -n 's/^  \(-[a-z], \)\{0,1\}\(--[a-z][a-z0-9-]*\( [^ ]*\)\{0,1\}\).*/\2/p'
}

# The options bash offers after COMMAND [FORM], one per line, in order.
offered_options() {	# PROGRAM COMMAND FORM
	complete_words "$1" "$2" ${3:+"$3"} --
}

# Feeds a command line back to the program, --help last: status 0 when
# the parser accepted every option and value before it.
accepted() {	# PROGRAM COMMAND FORM ARGS...
	local program=$1 command=$2 form=$3

	shift 3
	(cd "$T_TMP" && "$TU_TOP/build/$program" "$command" ${form:+"$form"} "$@" --help) \
		>/dev/null 2>"$T_TMP/err"
}

test_each_form_offers_exactly_its_options() {
	local program command form want got twice

	for program in cpusteer cpusteer-bench; do
		for command in $(commands_of $program); do
			while read -r form; do
				want=$({ help_options $program "$command" "$form" | cut -d' ' -f1
					 [ -z "$form" ] && forms_of $program "$command" | sed 1d; } |
					sort -u)
				[ -n "$want" ] || t_fail "$program $command $form --help lists no option"
				got=$(offered_options $program "$command" "$form")
				twice=$(sort <<<"$got" | uniq -d | tr '\n' ' ')
				[ -z "$twice" ] || t_fail "$program $command $form --<TAB> twice: $twice"
				t_eq "$program $command $form --<TAB>" "$want" "$(sort -u <<<"$got")"
			done < <(forms_of $program "$command")
		done
	done
}

# The fixed values --help shows for an option ("on|off",
# "none|pass|drop|redirect:IFACE"), as completion offers them: a word
# with a placeholder by its prefix ("redirect:").
shown_values() {	# VALUE
	[[ $1 == *'|'* ]] || return 0
	tr '|' '\n' <<<"$1" | sed 's/^\([a-z0-9-]*:\).*/\1/' | sort
}

# The whole values offered for --OPTION: each word offered; after a
# prefix ("redirect:") the first word offered to go with it; and after a
# word and a comma, the first next name of a list ("peer,nic-hash").
values_offered() {	# PROGRAM COMMAND FORM OPTION
	local value more

	for value in $(complete_words "$1" "$2" ${3:+"$3"} "$4" ''); do
		echo "$value"
		if [[ $value == *: ]]; then
			more=$(complete_words "$1" "$2" ${3:+"$3"} "$4" "$value" | head -1)
			[ -z "$more" ] || echo "$value$more"
		else
			complete_words "$1" "$2" ${3:+"$3"} "$4" "$value," | head -1
		fi
	done
}

test_every_offered_word_is_accepted() {
	local program command form option shown value values fed=0

	: >"$T_TMP/a-file"
	for program in cpusteer cpusteer-bench; do
		for command in $(commands_of $program); do
			while read -r form; do
				while read -r option shown; do
					[[ $option == --help || $option == --verbose ]] && continue
					if [ -z "$shown" ]; then
						accepted $program "$command" "$form" "$option" ||
							t_fail "$program $command $form $option refused: $(cat "$T_TMP/err")"
						fed=$((fed + 1))
						continue
					fi
					values=$(cd "$T_TMP" && values_offered $program "$command" "$form" "$option")
					if [ -n "$(shown_values "$shown")" ]; then
						t_eq "$program $command $form $option <TAB> offers what --help shows" \
							"$(shown_values "$shown")" \
							"$(grep -v ':.' <<<"$values" | sort)"
					fi
					for value in $values; do
						[[ $value == *: ]] && continue
						accepted $program "$command" "$form" "$option" "$value" ||
							t_fail "$program $command $form $option $value refused: $(cat "$T_TMP/err")"
						fed=$((fed + 1))
					done
					[ -n "$values" ] && continue
					# Nothing to offer (a number, a list): the
					# option itself must still be known.
					accepted $program "$command" "$form" "$option" x
					! grep -q "unknown option" "$T_TMP/err" ||
						t_fail "$program $command $form $option unknown to the parser"
				done < <(help_options $program "$command" "$form")
			done < <(forms_of $program "$command")
		done
	done
	# Every option of every command, and more values: a count that only
	# says the loops ran.
	t_ge "words fed back" 50 "$fed"
}

# A list's next name after a comma; a prefix with its value right after
# it (no space), then what goes there; directories with their '/'.
test_lists_prefixes_and_directories() {
	local got

	got=$(complete_words cpusteer-bench bench --scenario peer,sk)
	t_eq "bench --scenario peer,sk<TAB>" "peer,skewed" "$got"
	t_eq "bench --program --<TAB> has no --scenario" "" \
		"$(complete_words cpusteer-bench bench --program --sc)"
	t_eq "load IFACE --remote red<TAB>" "redirect:" \
		"$(complete_words cpusteer load lo --remote red)"
	t_eq "... and no space after it" "-o nospace" "$(cat "$COMPOPT")"
	t_eq "load IFACE --remote redirect:l<TAB>" "lo" \
		"$(complete_words cpusteer load lo --remote redirect:l | grep -x lo)"
	t_eq "load IFACE --non-ip cpu:<TAB>" "0" \
		"$(complete_words cpusteer load lo --non-ip cpu: | grep -x 0)"
	mkdir -p "$T_TMP/confdir"
	t_eq "load IFACE --config <dir><TAB>" "$T_TMP/confdir" \
		"$(complete_words cpusteer load lo --config "$T_TMP/confd")"
	t_eq "... gets its '/' (as a file name)" "-o filenames" "$(cat "$COMPOPT")"
}

all_tests() {
	t_run each_form_offers_exactly_its_options test_each_form_offers_exactly_its_options
	t_run every_offered_word_is_accepted test_every_offered_word_is_accepted
	t_run lists_prefixes_and_directories test_lists_prefixes_and_directories
}

t_plan_of all_tests
all_tests
t_exit
