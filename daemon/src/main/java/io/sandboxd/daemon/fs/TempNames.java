package io.sandboxd.daemon.fs;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Names of in-flight upload temps (files of {@code PUT /v1/files}, staging directories of archive
 * uploads): {@link UserPath#TEMP_PREFIX}, this daemon's instance id, a random part. Never listed,
 * never addressable; those of another instance are a crashed predecessor's, which
 * {@link StaleTempSweep} removes.
 */
final class TempNames {
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Distinguishes this daemon's temps from a crashed predecessor's. */
    static final String INSTANCE_ID = hex(6);

    private TempNames() {}

    /** @param suffix {@code .tmp} for a file, {@code .dir} for a staging directory */
    static String next(String suffix) {
        return UserPath.TEMP_PREFIX + INSTANCE_ID + "-" + hex(8) + suffix;
    }

    private static String hex(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
