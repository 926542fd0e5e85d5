package io.sandboxd.router.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the project version and the git revision the jar was built from (else "unknown"). */
public final class VersionInfo implements IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"sandboxd-router " + value("version") + " (git " + value("revision") + ")"};
    }

    static String value(String key) {
        Properties p = new Properties();
        try (InputStream in = VersionInfo.class.getResourceAsStream("version.properties")) {
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
