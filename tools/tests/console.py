"""Drive ccos through its serial console as a person would: type, wait for what comes back.

Console(config) boots an ISO with QEMU's serial on pipes (-serial stdio),
keeps everything the guest prints (also in build/test/NAME/serial.log), and
offers expect(regex) with a timeout and send(text). close() ends QEMU if it
is still running and returns ccos's exit status, or None.
"""
import os
import re
import subprocess
import threading
import time

import harness


class ConsoleTimeout(AssertionError):
    pass


class Console:
    def __init__(self, config, prompt=r"^\$ "):
        self.config = config
        self.prompt = prompt    # the shell's, which command() waits for
        iso = harness.prepare(config)
        workdir = os.path.dirname(iso)
        self.log_path = os.path.join(workdir, "serial.log")
        cmd = harness.runqemu.qemu_command(iso, config.fw, harness.qemu_cpu(config), harness.qemu_extra(config),
                                           serial="stdio", workdir=workdir)
        self.qemu = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.raw = bytearray()
        self.pos = 0            # expect() looks from here on
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        with open(self.log_path, "wb") as log:
            while True:
                chunk = self.qemu.stdout.read1(4096)
                with self.changed:
                    self.raw.extend(chunk)
                    self.changed.notify_all()
                if not chunk:
                    return
                log.write(chunk)
                log.flush()

    @property
    def text(self):
        return harness.clean_log(bytes(self.raw))

    def tail(self, n=25):
        return "\n".join("    | " + l for l in self.text.splitlines()[-n:])

    def expect(self, pattern, timeout=30):
        """The first match of pattern (multi-line) after the last one; raise after timeout s."""
        __tracebackhide__ = True
        rx = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                m = rx.search(self.text, self.pos)
                if m:
                    self.pos = m.end()
                    return m
                left = deadline - time.monotonic()
                if left <= 0 or self.qemu.poll() is not None and not self.reader.is_alive():
                    raise ConsoleTimeout("no match for %r within %gs; the console said:\n%s"
                                         % (pattern, timeout, self.tail()))
                self.changed.wait(min(left, 0.5))

    def send(self, text):
        self.qemu.stdin.write(text.encode() if isinstance(text, str) else text)
        self.qemu.stdin.flush()

    def command(self, line, timeout=30):
        """Wait for the next prompt, type a line, wait for its echo; its output comes after."""
        self.expect(self.prompt, timeout)
        self.send(line + "\n")
        self.expect(re.escape(line) + r"\n", timeout)

    def close(self, timeout=30):
        """Wait for QEMU to exit (killing it after timeout s); ccos's exit status or None."""
        try:
            code = self.qemu.wait(timeout)
        except subprocess.TimeoutExpired:
            self.qemu.kill()
            code = self.qemu.wait()
        self.reader.join(5)
        harness.runqemu.remove_ovmf_vars(os.path.dirname(self.log_path))
        return harness.runqemu.decode_exit(code)

