package io.sandboxd.reliability.soak;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What one client has last written under its own directory {@code soak/c<N>}: each file's
 * content and which directories exist. Only that client writes there, so the model is exact.
 */
final class FileModel {
    static final List<String> NAMES = List.of(
            "f0", "f1", "f2", "f3", "f4", "f5", "sub0/g0", "sub0/g1", "sub1/g0", "sub1/g1", "sub1/deep/h0", "sub2/g0");
    static final List<String> DIRS = List.of("", "sub0", "sub1", "sub1/deep", "sub2");

    private final String dir;
    private final Map<String, byte[]> files = new HashMap<>();
    private final TreeSet<String> existingDirs = new TreeSet<>();

    FileModel(String dir) {
        this.dir = dir;
    }

    String dir() {
        return dir;
    }

    String path(String rel) {
        return rel.isEmpty() ? dir : dir + "/" + rel;
    }

    Optional<byte[]> content(String rel) {
        return Optional.ofNullable(files.get(rel));
    }

    void written(String rel, byte[] content) {
        files.put(rel, content);
        existingDirs.add("");
        String parent = rel;
        while (parent.contains("/")) {
            parent = parent.substring(0, parent.lastIndexOf('/'));
            existingDirs.add(parent);
        }
    }

    void deleted(String rel) {
        files.remove(rel);
    }

    boolean dirExists(String rel) {
        return existingDirs.contains(rel);
    }

    /** Expected entries of a directory: name → size, or -1 for a subdirectory. Sorted by name. */
    Map<String, Long> expectedEntries(String rel) {
        Map<String, Long> out = new java.util.TreeMap<>();
        String prefix = rel.isEmpty() ? "" : rel + "/";
        files.forEach((name, content) -> {
            if (name.startsWith(prefix) && !name.substring(prefix.length()).contains("/")) {
                out.put(name.substring(prefix.length()), (long) content.length);
            }
        });
        for (String d : existingDirs) {
            if (!d.isEmpty()
                    && d.startsWith(prefix)
                    && !d.substring(prefix.length()).contains("/")) {
                out.put(d.substring(prefix.length()), -1L);
            }
        }
        return out;
    }

    List<String> fileNames() {
        return new ArrayList<>(files.keySet());
    }
}
