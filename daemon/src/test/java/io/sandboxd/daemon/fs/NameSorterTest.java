package io.sandboxd.daemon.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** The external sort gives byte order for any names, in memory, spilled, and merged in several passes. */
class NameSorterTest {
    static Path dir;
    static int dirFd;

    @BeforeContainer
    static void open() throws Exception {
        dir = Files.createTempDirectory("name-sorter");
        dirFd = Posix.openat(-100, dir.toString(), Posix.O_PATH | Posix.O_DIRECTORY);
    }

    @AfterContainer
    static void close() throws Exception {
        Posix.closeQuietly(dirFd);
        Files.deleteIfExists(dir);
    }

    @Property(tries = 200)
    void sortsByteWise(
            @ForAll @Size(max = 700) Set<@Size(min = 1, max = 40) byte[]> names,
            @ForAll @IntRange(min = 1, max = 16) int runNames)
            throws Exception {
        TreeSet<Name> expected = new TreeSet<>();
        List<Name> out = new ArrayList<>();
        try (NameSorter sorter = new NameSorter(dirFd, 4, runNames)) {
            for (byte[] n : names) {
                Name name = Name.of(n.clone());
                if (expected.add(name)) {
                    sorter.add(name);
                }
            }
            try (SortedNames sorted = sorter.sorted()) {
                for (Name n = sorted.next(); n != null; n = sorted.next()) {
                    out.add(n);
                }
            }
        }
        assertThat(out).containsExactlyElementsOf(expected);
        try (var s = Files.list(dir)) {
            assertThat(s.count()).as("spill files are unnamed").isZero();
        }
    }

    @Property(tries = 200)
    void keepsOnlyTheSmallest(
            @ForAll @Size(max = 400) Set<@Size(min = 1, max = 20) byte[]> names,
            @ForAll @IntRange(min = 1, max = 40) int keep,
            @ForAll @IntRange(min = 2, max = 64) int memoryNames,
            @ForAll @IntRange(min = 1, max = 16) int runNames)
            throws Exception {
        TreeSet<Name> all = new TreeSet<>();
        List<Name> out = new ArrayList<>();
        try (NameSorter sorter = new NameSorter(dirFd, memoryNames, runNames, keep)) {
            for (byte[] n : names) {
                Name name = Name.of(n.clone());
                if (all.add(name)) {
                    sorter.add(name);
                }
            }
            try (SortedNames sorted = sorter.sorted()) {
                for (Name n = sorted.next(); n != null; n = sorted.next()) {
                    out.add(n);
                }
            }
        }
        assertThat(out).containsExactlyElementsOf(all.stream().limit(keep).toList());
    }
}
