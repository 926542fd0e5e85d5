package io.sandboxd.daemon.fs;

import java.util.ArrayList;
import java.util.List;

/**
 * The name of an archive entry made safe to extract (runtime-contract §4.3), or refused. Pure: no
 * I/O. Names are bytes. {@code .} and empty segments vanish ({@code ./a//b/} is {@code a/b});
 * an absolute name, a {@code ..} segment anywhere, a NUL, a segment over NAME_MAX, a name over
 * PATH_MAX and a name reserved for in-flight uploads are refused: nothing in an archive may
 * name a place outside the directory it is extracted into.
 */
final class ArchivePath {
    private ArchivePath() {}

    /**
     * @param what what the name is for the message ("entry", "hard link target")
     * @return the segments; empty for the archive's top directory ({@code ./})
     * @throws ArchiveRefused naming the entry and why
     */
    static List<Name> parse(byte[] raw, String what) throws ArchiveRefused {
        String shown = Utf8.lossy(raw);
        if (raw.length == 0) {
            throw new ArchiveRefused(what + " with an empty name");
        }
        if (raw[0] == '/') {
            throw new ArchiveRefused(what + " \"" + shown + "\" has an absolute name");
        }
        if (raw.length > UserPath.MAX_PATH_BYTES) {
            throw new ArchiveRefused(what + " name is longer than " + UserPath.MAX_PATH_BYTES + " bytes");
        }
        List<Name> out = new ArrayList<>();
        for (Name s : UserPath.split(raw)) {
            if (s.isEmpty() || s.isDot()) {
                continue;
            }
            if (s.isDotDot()) {
                throw new ArchiveRefused(what + " \"" + shown + "\" has a \"..\" segment");
            }
            if (s.length() > UserPath.MAX_NAME_BYTES) {
                throw new ArchiveRefused(
                        what + " \"" + shown + "\" has a segment longer than " + UserPath.MAX_NAME_BYTES + " bytes");
            }
            for (byte b : s.bytes()) {
                if (b == 0) {
                    throw new ArchiveRefused(what + " \"" + shown + "\" has a NUL byte");
                }
            }
            if (s.startsWith(UserPath.TEMP_PREFIX_BYTES)) {
                throw new ArchiveRefused(what + " \"" + shown + "\" uses the reserved prefix " + UserPath.TEMP_PREFIX);
            }
            out.add(s);
        }
        return out;
    }
}
