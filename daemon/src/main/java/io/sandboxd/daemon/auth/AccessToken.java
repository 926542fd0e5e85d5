package io.sandboxd.daemon.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * The optional bearer token shared by REST and gRPC. Comparison is constant-time in the token
 * content so response timing reveals nothing about how much of a guess was right.
 */
public final class AccessToken {
    private static final String BEARER = "Bearer ";
    private final byte[] expected;

    private AccessToken(byte[] expected) {
        this.expected = expected;
    }

    public static AccessToken disabled() {
        return new AccessToken(null);
    }

    public static AccessToken of(String token) {
        if (token == null || token.isEmpty()) {
            throw new IllegalArgumentException("access token must not be empty");
        }
        return new AccessToken(token.getBytes(StandardCharsets.UTF_8));
    }

    public static AccessToken from(Optional<String> token) {
        return token.map(AccessToken::of).orElseGet(AccessToken::disabled);
    }

    public boolean enabled() {
        return expected != null;
    }

    /** @param authorization the raw {@code Authorization} header / metadata value, may be null */
    public boolean permits(String authorization) {
        if (expected == null) {
            return true;
        }
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        byte[] presented = authorization.substring(BEARER.length()).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(expected, presented);
    }
}
