package io.sandboxd.daemon.rest;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A tree described exactly, names as bytes (hex): one line per entry with type, mode, size,
 * content hash and link target, sorted. Made by python3 on bytes paths, since the JVM's file
 * names are text and would blur names that are not UTF-8.
 */
final class TreeManifest {
    private static final String PROGRAM = String.join(
            "\n",
            "import os, sys, stat, hashlib",
            "top = os.fsencode(sys.argv[1]); out = []",
            "def walk(d, rel):",
            "    for n in sorted(os.listdir(d)):",
            "        p = os.path.join(d, n); r = rel + b'/' + n if rel else n; st = os.lstat(p)",
            "        line = r.hex() + ' ' + oct(st.st_mode)",
            "        if stat.S_ISREG(st.st_mode):",
            "            line += ' ' + str(st.st_size) + ' ' + hashlib.sha256(open(p, 'rb').read()).hexdigest()",
            "        elif stat.S_ISLNK(st.st_mode):",
            "            line += ' -> ' + os.readlink(p).hex()",
            "        out.append(line)",
            "        if stat.S_ISDIR(st.st_mode): walk(p, r)",
            "walk(top, b'')",
            "print(oct(os.lstat(top).st_mode)); print('\\n'.join(out))");

    private TreeManifest() {}

    static String of(Path dir) throws Exception {
        Process p = new ProcessBuilder("/usr/bin/python3", "-c", PROGRAM, dir.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("manifest failed: " + out);
        }
        return out;
    }
}
