package io.sandboxd.daemon.fs.watch;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.DirectoryHandles;
import io.sandboxd.daemon.fs.SandboxRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The filesystem watch (runtime-contract §4.2): opens {@link WatchStream}s over paths of the
 * sandbox root. Transport-neutral; the REST adapter turns streams into Server-Sent Events. The
 * watch thread and the daemon's inotify instance are created by the first watch, so a daemon
 * nobody watches pays nothing for this.
 */
public final class FileWatcher implements AutoCloseable {
    private final SandboxRoot root;
    private final WatchSettings settings;
    private WatchEngine engine;
    private boolean closed;

    public FileWatcher(SandboxRoot root, WatchSettings settings) {
        this.root = root;
        this.settings = settings;
    }

    public WatchSettings settings() {
        return settings;
    }

    /**
     * Watches {@code clientPath} (a directory, recursively or not, or a single file).
     *
     * @param clientPath  the percent-decoded client path (runtime-contract §2.1: confined)
     * @param excludeGlobs exclude globs as bytes (see {@link ExcludeGlobs}); ignored for a file
     * @param resumeAfter the last sequence number the client saw of this same watch, or null
     * @throws SandboxException NOT_FOUND, PERMISSION_DENIED (escapes), INVALID_ARGUMENT (bad glob
     *     or cursor), RESOURCE_EXHAUSTED (a limit, named), UNAVAILABLE (shutting down)
     */
    public WatchStream open(byte[] clientPath, boolean recursive, List<byte[]> excludeGlobs, Long resumeAfter)
            throws SandboxException {
        List<String> excludes = excludeGlobs.stream().map(FileWatcher::raw).toList();
        ExcludeGlobs globs;
        try {
            globs = ExcludeGlobs.parse(excludes);
        } catch (IllegalArgumentException e) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, e.getMessage());
        }
        if (resumeAfter != null && resumeAfter < 0) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "cursor must not be negative");
        }
        WatchEngine e = engine();
        return e.call(() -> {
            DirectoryHandles.Target target = DirectoryHandles.resolve(root, clientPath);
            List<byte[]> segs = target.segments();
            WatchKey key;
            if (target.directory()) {
                key = new WatchKey(join(segs, segs.size()), null, recursive, excludes);
            } else {
                key = new WatchKey(join(segs, segs.size() - 1), raw(segs.get(segs.size() - 1)), false, List.of());
            }
            TreeWatch w = e.attach(key, target.directory() ? globs : ExcludeGlobs.NONE);
            return new WatchStream(e, w, resumeAfter);
        });
    }

    private synchronized WatchEngine engine() throws SandboxException {
        if (closed) {
            throw new SandboxException(ErrorKind.UNAVAILABLE, "the daemon is shutting down");
        }
        if (engine == null || !engine.isRunning()) {
            try {
                engine = WatchEngine.start(root, settings);
            } catch (WatchLimitException e) {
                throw new SandboxException(ErrorKind.RESOURCE_EXHAUSTED, e.getMessage());
            } catch (IOException e) {
                throw new SandboxException(ErrorKind.INTERNAL, "cannot start watching: " + e.getMessage());
            }
        }
        return engine;
    }

    private static String raw(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static String join(List<byte[]> segs, int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append('/');
            }
            sb.append(raw(segs.get(i)));
        }
        return sb.toString();
    }

    /** Ends every watch (each stream gets an {@code error} event and ends) and stops the watch thread. */
    @Override
    public void close() {
        WatchEngine e;
        synchronized (this) {
            closed = true;
            e = engine;
        }
        if (e != null) {
            e.shutdown();
        }
    }
}
