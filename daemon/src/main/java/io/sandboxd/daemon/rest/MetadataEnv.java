package io.sandboxd.daemon.rest;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@code GET /v1/metadata} exposes (runtime-contract §2.6): variables with the configured prefix,
 * minus any whose name has a credential word as a whole {@code _}-separated word, so
 * {@code SANDBOX_API_TOKEN} is withheld while {@code SANDBOX_MONKEY} and {@code SANDBOX_AUTHOR} are not.
 */
final class MetadataEnv {
    static final Set<String> CREDENTIAL_WORDS = Set.of(
            "TOKEN",
            "TOKENS",
            "SECRET",
            "SECRETS",
            "PASSWORD",
            "PASSWORDS",
            "PASSWD",
            "CREDENTIAL",
            "CREDENTIALS",
            "CRED",
            "CREDS",
            "KEY",
            "KEYS",
            "APIKEY",
            "AUTH",
            "BEARER",
            "CERT",
            "CERTS",
            "PRIVATE");

    private MetadataEnv() {}

    static Map<String, String> filter(Map<String, String> env, String prefix) {
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            String name = e.getKey();
            if (name.startsWith(prefix) && !hasCredentialWord(name)) {
                out.put(name, e.getValue());
            }
        }
        return out;
    }

    static boolean hasCredentialWord(String name) {
        for (String word : name.toUpperCase(Locale.ROOT).split("_")) {
            if (CREDENTIAL_WORDS.contains(word)) {
                return true;
            }
        }
        return false;
    }
}
