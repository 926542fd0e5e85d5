package io.sandboxd.daemon.fs;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Reads directory entries with {@code getdents64}, names as raw bytes, one directory at a time
 * through one reusable native buffer: the tree walks move it from directory to directory
 * instead of holding a descriptor (and a buffer) per level, so their depth costs no descriptors.
 * Each batch the kernel fills is copied to the heap in one call and parsed there: reading it
 * byte by byte through {@link Memory} was one JNI call per byte of every name, which dominated
 * paging through a 1,000,000-entry directory and archiving a tree.
 */
final class DirectoryReader implements AutoCloseable {
    static final int DT_UNKNOWN = 0;
    static final int DT_DIR = 4;
    static final int DT_REG = 8;
    static final int DT_LNK = 10;
    /** ~1000 entries of short names per call. */
    private static final int BUFFER_BYTES = 32 * 1024;
    /** struct linux_dirent64: u64 d_ino, s64 d_off, u16 d_reclen, u8 d_type, char d_name[]. */
    private static final int D_OFF = 8;

    private static final int D_RECLEN = 16;
    private static final int D_TYPE = 18;
    private static final int D_NAME = 19;

    private final Memory buffer = new Memory(BUFFER_BYTES);
    private final long address = Pointer.nativeValue(buffer);
    private final byte[] batch = new byte[BUFFER_BYTES];
    private final ByteBuffer view = ByteBuffer.wrap(batch).order(ByteOrder.nativeOrder());
    private int fd = -1;
    private int filled;
    private int position;
    private Name name;
    private int type;
    private long offset;

    /** A readable descriptor of the directory {@code dirFd} (which may be O_PATH) designates. */
    static int openSelf(int dirFd) throws LastErrorException {
        return Posix.openat(dirFd, ".", Posix.O_RDONLY | Posix.O_DIRECTORY);
    }

    /** A readable descriptor of the directory {@code name} in {@code dirFd}, never through a symlink. */
    static int openChild(int dirFd, Name name) throws LastErrorException {
        return Posix.openat(dirFd, name, Posix.O_RDONLY | Posix.O_DIRECTORY | Posix.O_NOFOLLOW);
    }

    /** A readable descriptor of the parent of {@code dirFd}. */
    static int openParent(int dirFd) throws LastErrorException {
        return Posix.openat(dirFd, "..", Posix.O_RDONLY | Posix.O_DIRECTORY);
    }

    /** Reads {@code directoryFd} from its start from now on; takes it over and closes the previous one. */
    void moveTo(int directoryFd) {
        Posix.closeQuietly(fd);
        fd = directoryFd;
        filled = 0;
        position = 0;
    }

    int fd() {
        return fd;
    }

    /** Back to the first entry. */
    void rewind() throws LastErrorException {
        seek(0);
    }

    /** To the entry after the one {@link #offset()} was read from. */
    void seek(long entryOffset) throws LastErrorException {
        Posix.C.lseek(fd, entryOffset, Posix.SEEK_SET);
        filled = 0;
        position = 0;
    }

    /** @return false at the end; {@code .} and {@code ..} are skipped */
    boolean next() throws LastErrorException {
        while (true) {
            if (position >= filled) {
                long n = Posix.C.getdents64(fd, address, BUFFER_BYTES);
                if (n <= 0) {
                    return false;
                }
                filled = (int) n;
                position = 0;
                buffer.read(0, batch, 0, filled);
            }
            int at = position;
            int reclen = view.getShort(at + D_RECLEN) & 0xffff;
            position += reclen;
            int len = 0;
            while (D_NAME + len < reclen && batch[at + D_NAME + len] != 0) {
                len++;
            }
            if (len == 1 && batch[at + D_NAME] == '.'
                    || len == 2 && batch[at + D_NAME] == '.' && batch[at + D_NAME + 1] == '.') {
                continue;
            }
            name = Name.of(Arrays.copyOfRange(batch, at + D_NAME, at + D_NAME + len));
            type = batch[at + D_TYPE] & 0xff;
            offset = view.getLong(at + D_OFF);
            return true;
        }
    }

    Name name() {
        return name;
    }

    /** {@code DT_*} of the current entry; {@link #DT_UNKNOWN} where the filesystem does not say. */
    int type() {
        return type;
    }

    /** Where reading resumes after the current entry ({@link #seek}). */
    long offset() {
        return offset;
    }

    /** Whether the current entry is a directory (not following a symlink), asking the inode only when the entry does not say. */
    boolean isDirectory() throws LastErrorException {
        if (type != DT_UNKNOWN) {
            return type == DT_DIR;
        }
        return Posix.statAt(fd, name).type() == Posix.S_IFDIR;
    }

    @Override
    public void close() {
        Posix.closeQuietly(fd);
        fd = -1;
        buffer.close();
    }
}
