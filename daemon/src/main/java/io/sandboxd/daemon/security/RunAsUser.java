package io.sandboxd.daemon.security;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.sandboxd.daemon.fs.FileOwner;
import io.sandboxd.daemon.process.os.ChildCredentials;
import java.util.Arrays;

/**
 * {@code --run-as-user UID[:GID]}: the user the sandbox's processes run as, with its supplementary
 * groups from the system's user database ({@code getgrouplist}); GID defaults to the user's
 * primary group there, else to the number UID. Resolved once, at startup.
 */
public final class RunAsUser {
    private RunAsUser() {}

    /**
     * @param spec {@code UID} or {@code UID:GID}, decimal
     * @throws IllegalArgumentException with a one-line reason when the value is malformed
     */
    public static ChildCredentials parse(String spec) {
        String s = spec.strip();
        int colon = s.indexOf(':');
        int uid = id(colon < 0 ? s : s.substring(0, colon), "UID");
        Passwd pw = Passwd.lookup(uid);
        int gid = colon < 0 ? (pw == null ? uid : pw.gid) : id(s.substring(colon + 1), "GID");
        int[] groups = pw == null ? new int[] {gid} : Passwd.groups(pw.name, gid);
        return ChildCredentials.of(uid, gid, groups);
    }

    /** The owner of what the REST API creates: the same user, so its processes can change it. */
    public static FileOwner fileOwner(ChildCredentials c) {
        return c.inherits() ? FileOwner.DAEMON : FileOwner.of(c.uid(), c.gid());
    }

    private static int id(String s, String what) {
        if (!s.matches("[0-9]{1,10}")) {
            throw new IllegalArgumentException(what + " must be a number (got \"" + s + "\")");
        }
        long v = Long.parseLong(s);
        if (v > 0xfffffffeL || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(what + " is out of range (got " + s + ")");
        }
        return (int) v;
    }

    private record Passwd(String name, int gid) {
        /** struct passwd on LP64: char *pw_name; char *pw_passwd; uid_t pw_uid; gid_t pw_gid; ... */
        private static final int PW_GID = 20;

        static Passwd lookup(int uid) {
            Pointer pw = Libc.getpwuid(uid);
            if (pw == null) {
                return null;
            }
            return new Passwd(pw.getPointer(0).getString(0, "UTF-8"), pw.getInt(PW_GID));
        }

        static int[] groups(String name, int gid) {
            int[] n = {64};
            for (int attempt = 0; attempt < 4; attempt++) {
                int[] list = new int[n[0]];
                int got = Libc.getgrouplist(name, gid, list, n);
                if (got >= 0) {
                    return Arrays.copyOf(list, n[0]);
                }
            }
            return new int[] {gid};
        }
    }

    static final class Libc {
        static {
            Native.register(Libc.class, NativeLibrary.getInstance("c"));
        }

        static native Pointer getpwuid(int uid);

        static native int getgrouplist(String user, int group, int[] groups, int[] ngroups);
    }
}
