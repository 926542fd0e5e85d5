package io.sandboxd.daemon.fs;

import java.util.Optional;

/**
 * Options of an atomic write (runtime-contract §2.4).
 *
 * @param mode           permission bits applied exactly (not umasked)
 * @param sha256         expected SHA-256 of the content; mismatch → INVALID_ARGUMENT, nothing written
 * @param ifMatch        the file must exist with this ETag (or any ETag for "*"), else PRECONDITION_FAILED
 * @param ifNoneMatchAny the file must not exist, else PRECONDITION_FAILED
 */
public record WriteOptions(int mode, Optional<byte[]> sha256, Optional<String> ifMatch, boolean ifNoneMatchAny) {
    public static final int DEFAULT_MODE = 0644;
}
