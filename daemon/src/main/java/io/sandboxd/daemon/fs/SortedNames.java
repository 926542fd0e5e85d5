package io.sandboxd.daemon.fs;

import java.io.IOException;

/** A directory's names in byte order, read one at a time ({@link NameSorter#sorted()}). */
interface SortedNames extends AutoCloseable {
    /** @return the next name, or null after the last */
    Name next() throws IOException;

    @Override
    void close() throws IOException;
}
