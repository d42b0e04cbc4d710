# Read by a plain `gdb` started in this folder, once it is allowed (docs/gdb.md):
#   echo "add-auto-load-safe-path $PWD/.gdbinit" >> ~/.config/gdb/gdbinit
# then `make qemu-gdb` in one terminal and `gdb` in another, as in xv6.
source tools/gdb/ccos.gdb
ccos-user init
python
import os
try:
    gdb.execute("ccos-connect %d" % int(os.environ.get("GDBPORT") or 26000 + os.getuid() % 5000))
except gdb.error as e:
    print("ccos: %s: is `make qemu-gdb` running in another terminal?" % e)
end
