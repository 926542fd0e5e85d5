package io.sandboxd.daemon.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The project version and git revision the jar was built from (version.properties, filtered by Maven). */
final class BuildInfo {
    private BuildInfo() {}

    /** The value of {@code key}, or "unknown" when the build could not tell (no git, no filtering). */
    static String value(String key) {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        String v = p.getProperty(key, "").trim();
        return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
    }
}
