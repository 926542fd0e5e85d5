package io.sandboxd.daemon.fs;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.io.ByteArrayOutputStream;
import java.util.Base64;
import java.util.List;

/**
 * Where a paged listing resumes (runtime-contract §4.3): the path of the last entry a page
 * returned, relative to the listed directory. A position, not a snapshot: listings run in
 * depth-first order with each directory's names in byte order, so "strictly after this path"
 * means the same thing however the tree changed since, and the token stays valid for ever.
 * Pure: no I/O. On the wire: {@code "p1."} and the path's bytes ({@code /}-joined) in unpadded
 * base64url, opaque to clients.
 */
public record ListCursor(List<Name> path) {
    private static final String VERSION = "p1.";
    /** A path of at most PATH_MAX bytes encodes to this many characters at most. */
    private static final int MAX_TOKEN = VERSION.length() + (UserPath.MAX_PATH_BYTES + 2) / 3 * 4;

    public ListCursor {
        path = List.copyOf(path);
        if (path.isEmpty()) {
            throw new IllegalArgumentException("a cursor names an entry");
        }
    }

    public String encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < path.size(); i++) {
            if (i > 0) {
                out.write('/');
            }
            out.writeBytes(path.get(i).bytes());
        }
        return VERSION + Base64.getUrlEncoder().withoutPadding().encodeToString(out.toByteArray());
    }

    /** @throws SandboxException INVALID_ARGUMENT for anything {@link #encode} cannot have produced */
    public static ListCursor decode(String token) throws SandboxException {
        if (token.length() > MAX_TOKEN || !token.startsWith(VERSION)) {
            throw invalid();
        }
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(token.substring(VERSION.length()));
        } catch (IllegalArgumentException e) {
            throw invalid();
        }
        List<Name> segs = UserPath.split(bytes);
        for (Name s : segs) {
            if (s.isEmpty() || s.isDot() || s.isDotDot() || s.length() > UserPath.MAX_NAME_BYTES) {
                throw invalid();
            }
            for (byte b : s.bytes()) {
                if (b == 0) {
                    throw invalid();
                }
            }
        }
        return new ListCursor(segs);
    }

    private static SandboxException invalid() {
        return new SandboxException(
                ErrorKind.INVALID_ARGUMENT, "cursor is not one a listing returned (pass next_cursor as given)");
    }
}
