# Everyday busybox applets: the same busybox binary runs this on ccos and on
# the host, and tools/tests/test_busybox.py compares the two outputs section
# by section ("== NAME" lines). $1 is an empty directory named bb to work in.
# Nothing printed may depend on the machine (times, owners, pids, paths),
# but in the sections that run on ccos alone (date_s, hwclock: setting the
# clock would move the host's; test_busybox.py's CCOS_ONLY says why).
exec 2>&1
cd "$1" || exit 1
s() { echo "== $1"; }
uname_r=$(uname -r)	# ccos's release ends in -ccos (docs/conformance.md)

s echo; echo hello world; echo -n no-newline; echo; echo "a  b" 'c  d'
s printf; printf '%s=%d %x %5.2f|%-4s|%03d\n' x 42 255 3.14159 ab 7
s redirection; echo one > f; echo two >> f; cat < f; cat f f > g; wc -l < g
s cat; printf 'b\na\nc\na\n' > list; cat list; cat -n list
s wc; wc list; wc -c < list; wc -w f
s sort; sort list; sort -r list; sort -u list; printf '10\n9\n100\n' | sort -n
s uniq; sort list | uniq -c; sort list | uniq -d
s head_tail; seq 1 20 > n; head -3 n; tail -2 n; head -n 2 list; tail -n +19 n
s grep; grep a list; grep -c a list; grep -v a list; grep -n '^[bc]' list; grep -q zzz list; echo "q $?"
s sed; sed 's/a/A/g' list; sed -n 2p list; sed 1d list; echo hello | sed 's/\(l*\)o/[\1]/'
s tr; echo hello | tr a-z A-Z; echo 'a b  c' | tr -s ' '; echo abc | tr -d b
s cut; echo 'a:b:c' | cut -d: -f2; echo abcdef | cut -c2-4
s ls; mkdir d; touch d/x d/y; ls; ls d; ls -a d; ls -d d
s mkdir_rmdir_rm; mkdir -p p/q/r; ls p/q; rmdir p/q/r; ls p/q; rm -r p; rm n; ls
s cp_mv; cp f h; mv h i; cat i; cp -r d e; ls e; rm -rf d e; mv i j; ls
s test; [ -f f ] && echo file; [ -d f ] || echo not-a-dir; test 3 -lt 5; echo $?
[ abc = abd ]; echo $?; [ -z "" ] && echo empty; [ ! -e nosuch ] && echo absent
s expr; expr 6 \* 7; expr 10 / 3; expr length hello; expr substr hello 2 3; expr 1 = 2; echo $?
s seq; seq 3; seq 2 2 8; seq -s, 5
s status; true; echo $?; false; echo $?; (exit 3); echo $?; sh -c 'exit 4'; echo $?
nosuchcommand 2>/dev/null; echo $?
s for_loop; for i in 1 2 3; do echo "i=$i"; done
i=0; while [ $i -lt 3 ]; do i=$((i + 1)); done; echo "while $i"
s subshell; (cd /; pwd); pwd | sed 's|.*/||'; x=outer; (x=inner; echo $x); echo $x
echo "$(echo nested $(echo deep))"; echo `echo backquotes`
s pipes; seq 10 | grep 1 | wc -l; cat list | sort | uniq | tr '\n' ' '; echo
seq 3000 | sort -rn | head -2; seq 3000 | tail -1
s case_function; for w in apple 42 x; do case $w in [0-9]*) echo num;; a*) echo a-word;; *) echo other;; esac; done
f() { echo "args $# $1"; return 2; }; f a b; echo $?
s here_document; cat <<END
x=$x
END
s awk; printf '1 2\n3 4\n' | awk '{ s += $1 * $2 } END { print s, NR }'
s xargs; printf 'a\nb\n' | xargs echo xs
s find; find . -name 'l*'; find . -type f | sort
s tee; echo teed | tee t; cat t
s basename_dirname; basename /a/b/c.txt .txt; dirname /a/b/c.txt
s checksums; md5sum list; sha1sum list; sha256sum list
s od_hexdump; printf 'AB\n' | od -c; printf 'AB\n' | hexdump -C
s rev_tac_nl_paste; echo abc | rev; tac list; nl list; paste -d- f f
s diff_cmp; cp f f2; diff f f2 && echo same; echo three >> f2; diff f f2; echo "diff $?"; cmp f f2; echo "cmp $?"
s gzip; seq 100 | gzip | gunzip | tail -1; seq 100 | gzip -c > z.gz; gunzip -c < z.gz | wc -l
s tar; tar cf a.tar f list; tar tf a.tar; mkdir x; tar xf a.tar -C x; ls x
s readlink; readlink /proc/self/exe | sed 's|.*/||'; readlink f; echo "readlink $?"
s env; env -i A=1 B=2 env | sort
s sleep; sleep 0; usleep 1000; echo "slept $?"
s truncate_stat; truncate -s 10 f; wc -c f; stat -c '%s %F' f list
s ln; echo one > l1; ln l1 l2; ls -l l1 l2 | awk '{print $2, $NF}'; echo two >> l2; cat l1
rm l1; cat l2; ls -l l2 | awk '{print $2}'; ln l2 l2; mkdir ld; ln ld le; ln /proc/self/status lx; ls -d l*
s times; TZ=UTC0 touch -d '2001-09-09 01:46:40' t; stat -c '%Y %X' t; TZ=UTC0 ls -l --full-time t | awk '{print $6, $7}'
cat t; [ $(stat -c %X t) -gt 1000000000 ] && echo a-read-sets-atime
echo x >> t; [ $(stat -c %Y t) -gt 1000000000 ] && echo a-write-sets-mtime
s df; df -P . | sed 1q; df -P . | tail -1 | awk '{print NF, ($3 <= $2)}'; df > /dev/null; echo "df $?"
s mount; mount | grep -c ' on /proc type proc '; grep -c '^proc /proc proc ' /proc/mounts
s sysctl; sysctl -a 2>/dev/null | grep -c '^kernel\.randomize_va_space = [0-2]$'
[ "$(sysctl -n kernel.ostype)" = "$(uname -s)" ] && echo ostype-is-uname-s
[ "$(sysctl -n kernel.osrelease)" = "$(uname -r)" ] && echo osrelease-is-uname-r
s date_s; if [ "${uname_r%-ccos}" != "$uname_r" ]; then now=$(date +%s); date -s '2030-01-02 03:04:05' > /dev/null
date -u '+%Y-%m-%d %H:%M'; date -s "@$now" > /dev/null; fi
s hwclock; if [ "${uname_r%-ccos}" != "$uname_r" ]; then hwclock -r; fi
s end
