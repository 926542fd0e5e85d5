package io.sandboxd.daemon.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Semaphore;

/**
 * Sorts the names of one directory byte-wise (runtime-contract §2.3) in bounded memory, whatever their
 * number. A directory of up to {@link #MEMORY_NAMES} names is sorted in memory. A larger one is
 * an external merge sort: sorted runs of at most {@link #RUN_NAMES} names / {@link #RUN_BYTES}
 * bytes go to a {@link SpillFile}, then are merged, {@link #FAN_IN} at a time, into one sorted
 * run that is read back as the listing is sent. Sorting large directories takes one of
 * {@link #CONCURRENT_SPILLS} daemon-wide permits (callers wait for one), so all of them together
 * hold at most 4 x ~3 MiB of heap; the sending phase then holds one 16 KiB read buffer.
 * Measured: 1,000,000 names in ~62 runs, one merge pass.
 *
 * <p>A sorter may be told it needs only the {@code keep} smallest names (a page of a listing,
 * runtime-contract §4.3): then at most {@code 2 x keep} names stay in memory when that is below
 * {@link #MEMORY_NAMES} (sorted and cut back to {@code keep} whenever the limit is reached, so
 * nothing spills), and otherwise every spilled run and the merge stop after {@code keep} names.
 */
final class NameSorter implements AutoCloseable {
    static final int MEMORY_NAMES = 4096;
    static final int RUN_NAMES = 16_384;
    static final long RUN_BYTES = 1024 * 1024;
    static final int FAN_IN = 64;
    static final int CONCURRENT_SPILLS = 4;
    private static final int READ_BUFFER = 16 * 1024;
    private static final int WRITE_BUFFER = 64 * 1024;
    private static final Semaphore SPILLS = new Semaphore(CONCURRENT_SPILLS, true);

    /** A stretch of the spill file holding names in order: [u16 length][bytes]... */
    private record Run(long start, long end) {}

    private final int rootFd;
    private final int memoryNames;
    private final int runNames;
    /** Only this many smallest names are wanted; {@link Integer#MAX_VALUE} for all. */
    private final int keep;
    /** Keep small enough to select in memory: cut the run back to {@link #keep} at twice that. */
    private final boolean selectInMemory;

    private final List<Name> run = new ArrayList<>();
    /**
     * In {@link #selectInMemory} mode after the first cut, the largest name kept: a name above it
     * can never be among the {@code keep} smallest, so it is dropped on arrival. Most names of a
     * big directory then cost one comparison and a page's selection is nearly linear.
     */
    private Name ceiling;

    private long runBytes;
    private SpillFile spill;
    private boolean holdsPermit;
    private final List<Run> runs = new ArrayList<>();

    /** @param rootFd where a spill file goes when the names do not fit in memory */
    NameSorter(int rootFd) {
        this(rootFd, Integer.MAX_VALUE);
    }

    /** @param keep only the {@code keep} smallest names are wanted from {@link #sorted()} */
    NameSorter(int rootFd, int keep) {
        this(rootFd, MEMORY_NAMES, RUN_NAMES, keep);
    }

    /** Smaller thresholds make tests exercise spilling and multi-pass merges with few names. */
    NameSorter(int rootFd, int memoryNames, int runNames) {
        this(rootFd, memoryNames, runNames, Integer.MAX_VALUE);
    }

    NameSorter(int rootFd, int memoryNames, int runNames, int keep) {
        if (keep < 1) {
            throw new IllegalArgumentException("keep must be positive");
        }
        this.rootFd = rootFd;
        this.memoryNames = memoryNames;
        this.runNames = runNames;
        this.keep = keep;
        this.selectInMemory = keep <= memoryNames / 2;
    }

    void add(Name name) throws IOException {
        if (ceiling != null && name.compareTo(ceiling) > 0) {
            return;
        }
        run.add(name);
        runBytes += name.length();
        if (selectInMemory) {
            if (run.size() >= 2 * keep) {
                cutRun();
            }
        } else if (spill == null ? run.size() > memoryNames : run.size() >= runNames || runBytes >= RUN_BYTES) {
            spillRun();
        }
    }

    /** Sorts the run and drops all but its {@link #keep} smallest names. */
    private void cutRun() {
        run.sort(null);
        if (run.size() > keep) {
            run.subList(keep, run.size()).clear();
            ceiling = run.get(keep - 1);
        }
    }

    private void spillRun() throws IOException {
        if (spill == null) {
            SPILLS.acquireUninterruptibly();
            holdsPermit = true;
            spill = SpillFile.create(rootFd);
        }
        run.sort(null);
        runs.add(write(run.iterator()));
        run.clear();
        runBytes = 0;
    }

    /** Every name added, in byte order; the sorter's memory (and permit) is released as far as possible. */
    SortedNames sorted() throws IOException {
        if (spill == null) {
            cutRun();
            Iterator<Name> it = run.iterator();
            return new SortedNames() {
                @Override
                public Name next() {
                    return it.hasNext() ? it.next() : null;
                }

                @Override
                public void close() {}
            };
        }
        if (!run.isEmpty()) {
            spillRun();
        }
        while (runs.size() > 1) {
            List<Run> merged = new ArrayList<>();
            for (int i = 0; i < runs.size(); i += FAN_IN) {
                merged.add(merge(runs.subList(i, Math.min(runs.size(), i + FAN_IN))));
            }
            runs.clear();
            runs.addAll(merged);
        }
        releasePermit();
        RunReader last = new RunReader(spill, runs.isEmpty() ? new Run(0, 0) : runs.get(0));
        SpillFile file = spill;
        spill = null; // the reader owns it now
        return new SortedNames() {
            @Override
            public Name next() throws IOException {
                return last.next();
            }

            @Override
            public void close() throws IOException {
                file.close();
            }
        };
    }

    private Run merge(List<Run> group) throws IOException {
        if (group.size() == 1) {
            return group.get(0);
        }
        PriorityQueue<RunReader> heads = new PriorityQueue<>((a, b) -> a.head.compareTo(b.head));
        for (Run r : group) {
            RunReader reader = new RunReader(spill, r);
            if (reader.advance()) {
                heads.add(reader);
            }
        }
        return write(new Iterator<>() {
            @Override
            public boolean hasNext() {
                return !heads.isEmpty();
            }

            @Override
            public Name next() {
                RunReader r = heads.poll();
                Name n = r.head;
                try {
                    if (r.advance()) {
                        heads.add(r);
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return n;
            }
        });
    }

    private Run write(Iterator<Name> names) throws IOException {
        ByteBuffer out = ByteBuffer.allocate(WRITE_BUFFER);
        long start = spill.size();
        try {
            for (int written = 0; written < keep && names.hasNext(); written++) {
                Name n = names.next();
                if (out.remaining() < 2 + n.length()) {
                    out.flip();
                    spill.append(out);
                    out.clear();
                }
                out.putShort((short) n.length()).put(n.bytes());
            }
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
        out.flip();
        spill.append(out);
        return new Run(start, spill.size());
    }

    private void releasePermit() {
        if (holdsPermit) {
            holdsPermit = false;
            SPILLS.release();
        }
    }

    @Override
    public void close() throws IOException {
        releasePermit();
        if (spill != null) {
            spill.close();
        }
    }

    /** Names out of one run, through a small buffer. */
    private static final class RunReader {
        private final SpillFile file;
        private final long end;
        private long position;
        private final ByteBuffer buf = ByteBuffer.allocate(READ_BUFFER);
        Name head;

        RunReader(SpillFile file, Run run) {
            this.file = file;
            this.position = run.start();
            this.end = run.end();
            buf.limit(0);
        }

        boolean advance() throws IOException {
            head = next();
            return head != null;
        }

        Name next() throws IOException {
            if (!fill(2)) {
                return null;
            }
            int len = buf.getShort() & 0xffff;
            if (!fill(len)) {
                throw new IOException("listing spill file truncated");
            }
            byte[] b = new byte[len];
            buf.get(b);
            return Name.of(b);
        }

        /** @return false when the run is exhausted */
        private boolean fill(int need) throws IOException {
            if (buf.remaining() >= need) {
                return true;
            }
            buf.compact();
            while (buf.position() < need && position < end) {
                int room = (int) Math.min(buf.remaining(), end - position);
                ByteBuffer slice = buf.slice(buf.position(), room);
                int n = file.read(slice, position);
                if (n <= 0) {
                    break;
                }
                position += n;
                buf.position(buf.position() + n);
            }
            buf.flip();
            return buf.remaining() >= need;
        }
    }
}
