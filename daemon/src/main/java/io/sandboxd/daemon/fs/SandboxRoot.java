package io.sandboxd.daemon.fs;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The sandbox root and the one place that confines user paths to it (CONTRACT §2.1, §1.2 cwd).
 * Every filesystem operation and every process cwd goes through this class.
 */
public final class SandboxRoot {
    private final Path root;

    /** @param root real absolute path of an existing directory */
    public SandboxRoot(Path root) {
        this.root = root;
    }

    public Path path() {
        return root;
    }

    /**
     * Resolves a process working directory (CONTRACT §1.2): unset/empty → the root; relative →
     * under the root; absolute → re-rooted. Escapes → PERMISSION_DENIED, missing → NOT_FOUND
     * naming the cwd, a non-directory → INVALID_ARGUMENT.
     *
     * @return the real path of the directory, inside the root
     */
    public Path resolveWorkingDirectory(String cwd) throws SandboxException {
        if (cwd == null || cwd.isEmpty()) {
            return root;
        }
        if (cwd.indexOf('\0') >= 0) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "cwd contains a NUL byte");
        }
        String rel = stripRootPrefix(cwd);
        Path joined = root;
        for (String seg : rel.split("/")) {
            if (seg.isEmpty() || seg.equals(".")) {
                continue;
            }
            if (seg.equals("..")) {
                if (joined.equals(root)) {
                    throw escape(cwd);
                }
                joined = joined.getParent();
                continue;
            }
            joined = joined.resolve(seg);
        }
        Path real;
        try {
            real = joined.toRealPath();
        } catch (NoSuchFileException e) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "cwd \"" + cwd + "\" does not exist");
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "cwd \"" + cwd + "\" cannot be resolved");
        }
        if (!real.startsWith(root)) {
            throw escape(cwd);
        }
        if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "cwd \"" + cwd + "\" is not a directory");
        }
        return real;
    }

    private String stripRootPrefix(String p) {
        String r = root.toString();
        if (p.equals(r)) {
            return "";
        }
        if (p.startsWith(r + "/")) {
            return p.substring(r.length() + 1);
        }
        return p;
    }

    private static SandboxException escape(String cwd) {
        return new SandboxException(ErrorKind.PERMISSION_DENIED,
                "cwd: access denied: path \"" + cwd + "\": path escapes sandbox root");
    }
}
