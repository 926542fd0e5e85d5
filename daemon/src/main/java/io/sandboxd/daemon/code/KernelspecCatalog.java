package io.sandboxd.daemon.code;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The kernelspecs installed where Jupyter looks for them (jupyter_core's data path, in its
 * order): every entry of {@code JUPYTER_PATH}, the user's data dir ({@code JUPYTER_DATA_DIR}, else
 * {@code $XDG_DATA_HOME/jupyter} or {@code ~/.local/share/jupyter}), then
 * {@code /usr/local/share/jupyter} and {@code /usr/share/jupyter}; each with {@code kernels/<name>/kernel.json}.
 * The first spec of a name wins. Read on every lookup, so a kernel installed later is found.
 */
public final class KernelspecCatalog {
    /** jupyter_client's rule for kernel names. */
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9._-]{1,255}");
    /** What an empty CreateContext asks for: the reference kernel. */
    static final String DEFAULT_LANGUAGE = "python";

    private final List<Path> kernelDirs;

    public KernelspecCatalog(List<Path> kernelDirs) {
        this.kernelDirs = List.copyOf(kernelDirs);
    }

    /** The standard search path for the daemon's environment. */
    public static KernelspecCatalog standard(Map<String, String> env) {
        return new KernelspecCatalog(searchPath(env));
    }

    static List<Path> searchPath(Map<String, String> env) {
        List<Path> dataDirs = new ArrayList<>();
        String jupyterPath = env.get("JUPYTER_PATH");
        if (jupyterPath != null) {
            for (String p : jupyterPath.split(":")) {
                if (!p.isBlank()) {
                    dataDirs.add(Path.of(p));
                }
            }
        }
        String dataDir = env.get("JUPYTER_DATA_DIR");
        String xdg = env.get("XDG_DATA_HOME");
        String home = env.get("HOME");
        if (dataDir != null && !dataDir.isBlank()) {
            dataDirs.add(Path.of(dataDir));
        } else if (xdg != null && !xdg.isBlank()) {
            dataDirs.add(Path.of(xdg, "jupyter"));
        } else if (home != null && !home.isBlank()) {
            dataDirs.add(Path.of(home, ".local", "share", "jupyter"));
        }
        dataDirs.add(Path.of("/usr/local/share/jupyter"));
        dataDirs.add(Path.of("/usr/share/jupyter"));
        return dataDirs.stream()
                .filter(Path::isAbsolute)
                .map(p -> p.resolve("kernels").normalize())
                .distinct()
                .toList();
    }

    /** Every installed spec by name, in search-path order; unreadable or malformed ones are skipped. */
    public Map<String, Kernelspec> available() {
        Map<String, Kernelspec> specs = new LinkedHashMap<>();
        for (Path dir : kernelDirs) {
            List<Path> entries;
            try (Stream<Path> s = Files.list(dir)) {
                entries = s.sorted().toList();
            } catch (IOException | SecurityException e) {
                continue; // a directory of the path that does not exist
            }
            for (Path specDir : entries) {
                String name = specDir.getFileName().toString();
                if (specs.containsKey(name) || !NAME.matcher(name).matches()) {
                    continue;
                }
                try {
                    String json = Files.readString(specDir.resolve("kernel.json"), StandardCharsets.UTF_8);
                    specs.put(name, parse(name, specDir, json));
                } catch (IOException | SecurityException | IllegalArgumentException e) {
                    // not a kernelspec directory, or a broken one: not offered
                }
            }
        }
        return specs;
    }

    /**
     * The spec named {@code kernel}, else the first whose language is {@code language}
     * (case-insensitive; empty: python).
     *
     * @throws SandboxException NOT_FOUND listing what is installed; INVALID_ARGUMENT for a bad name
     */
    public Kernelspec find(String kernel, String language) throws SandboxException {
        Map<String, Kernelspec> specs = available();
        if (kernel != null && !kernel.isEmpty()) {
            if (!NAME.matcher(kernel).matches()) {
                throw new SandboxException(
                        ErrorKind.INVALID_ARGUMENT, "invalid kernel name (letters, digits, '.', '_', '-')");
            }
            Kernelspec s = specs.get(kernel);
            if (s == null) {
                throw new SandboxException(ErrorKind.NOT_FOUND, "no kernel \"" + kernel + "\"; " + describe(specs));
            }
            return s;
        }
        String lang = language == null || language.isBlank() ? DEFAULT_LANGUAGE : language.strip();
        for (Kernelspec s : specs.values()) {
            if (s.language().equalsIgnoreCase(lang)) {
                return s;
            }
        }
        throw new SandboxException(
                ErrorKind.NOT_FOUND, "no kernel for language \"" + truncate(lang) + "\"; " + describe(specs));
    }

    private static String truncate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }

    /** "available: python3 (python), ir (R)" or "no kernelspec is installed". */
    static String describe(Map<String, Kernelspec> specs) {
        if (specs.isEmpty()) {
            return "no Jupyter kernelspec is installed (e.g. Debian's python3-ipykernel)";
        }
        return "available: "
                + specs.values().stream()
                        .map(s -> s.name() + " (" + s.language() + ")")
                        .collect(Collectors.joining(", "));
    }

    /**
     * One kernel.json (jupyter_client's format: argv, display_name, language, interrupt_mode, env).
     *
     * @throws IllegalArgumentException if it is not a usable spec
     */
    static Kernelspec parse(String name, Path dir, String json) {
        JsonObject o;
        try {
            JsonElement e = JsonParser.parseString(json);
            if (!e.isJsonObject()) {
                throw new IllegalArgumentException("kernel.json is not an object");
            }
            o = e.getAsJsonObject();
        } catch (JsonParseException e) {
            throw new IllegalArgumentException("kernel.json is not JSON", e);
        }
        JsonElement argvJson = o.get("argv");
        if (argvJson == null
                || !argvJson.isJsonArray()
                || argvJson.getAsJsonArray().isEmpty()) {
            throw new IllegalArgumentException("kernel.json has no argv");
        }
        List<String> argv = new ArrayList<>();
        for (JsonElement a : argvJson.getAsJsonArray()) {
            if (!a.isJsonPrimitive() || !a.getAsJsonPrimitive().isString()) {
                throw new IllegalArgumentException("kernel.json argv holds a non-string");
            }
            argv.add(a.getAsString());
        }
        String mode = WireCodec.string(o, "interrupt_mode").toLowerCase(Locale.ROOT);
        if (!mode.isEmpty() && !mode.equals("signal") && !mode.equals("message")) {
            throw new IllegalArgumentException("kernel.json interrupt_mode is neither signal nor message");
        }
        Map<String, String> env = new LinkedHashMap<>();
        JsonElement envJson = o.get("env");
        if (envJson != null && envJson.isJsonObject()) {
            for (Map.Entry<String, JsonElement> e : envJson.getAsJsonObject().entrySet()) {
                if (e.getValue().isJsonPrimitive()) {
                    env.put(e.getKey(), e.getValue().getAsString());
                }
            }
        }
        String language = WireCodec.string(o, "language");
        return new Kernelspec(
                name,
                List.copyOf(argv),
                WireCodec.string(o, "display_name"),
                language.isEmpty() ? name : language,
                !mode.equals("message"),
                Map.copyOf(env),
                dir);
    }
}
