package io.sandboxd.daemon.fs;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Sends a large file range as memory-mapped windows: the kernel copies straight from the page
 * cache into the socket, instead of first into a buffer of ours (one copy instead of two).
 * Each window is unmapped as soon as its write has completed, so mapped pages never pile up in
 * the daemon's RSS waiting for a GC. Our code never reads the mapped bytes itself: if the file
 * is truncated underneath, the kernel's copy fails (EFAULT, an IOException), nothing faults in
 * the JVM; and {@link FileChannel#map} refuses a window beyond the current end of file.
 */
public final class MappedWindows {
    public static final long WINDOW = 4L << 20;

    /** Where unmapping early is not possible, mapping is not used at all. */
    private static final Method INVOKE_CLEANER;

    private static final Object UNSAFE;

    static {
        Method m = null;
        Object u = null;
        try {
            Class<?> c = Class.forName("sun.misc.Unsafe");
            Field f = c.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            u = f.get(null);
            m = c.getMethod("invokeCleaner", ByteBuffer.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            m = null;
            u = null;
        }
        INVOKE_CLEANER = m;
        UNSAFE = u;
    }

    private MappedWindows() {}

    static boolean available() {
        return INVOKE_CLEANER != null;
    }

    /** Maps and writes {@code [pos, pos+length)} window by window. */
    static void send(FileChannel file, long pos, long length, ContentSink out) throws IOException {
        long end = pos + length;
        while (pos < end) {
            long n = Math.min(WINDOW, end - pos);
            MappedByteBuffer window = file.map(FileChannel.MapMode.READ_ONLY, pos, n);
            try {
                out.write(window);
            } finally {
                unmap(window);
            }
            pos += n;
        }
    }

    private static void unmap(MappedByteBuffer b) {
        try {
            INVOKE_CLEANER.invoke(UNSAFE, b);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // left to the GC
        }
    }
}
