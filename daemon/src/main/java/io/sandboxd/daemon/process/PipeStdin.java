package io.sandboxd.daemon.process;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.sandboxd.daemon.process.os.NativeIo;
import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The write end of a pipe-mode process's stdin, a blocking descriptor written from the stdin
 * channel's serial executor. The descriptor is closed exactly once (EOF or release): a second
 * close could hit the same number reused by another process's pipe.
 */
final class PipeStdin extends StdinChannel {
    private static final int SLICE = 64 * 1024;
    private final AtomicInteger fd;

    PipeStdin(int processId, int fd, Executor pool, StdinBudget budget) {
        super(processId, pool, budget);
        this.fd = new AtomicInteger(fd);
    }

    @Override
    void writeFully(byte[] data) throws IOException {
        int f = fd.get();
        if (f < 0) {
            throw new IOException("stdin closed");
        }
        Memory buf = new Memory(Math.min(data.length, SLICE));
        long addr = Pointer.nativeValue(buf);
        for (int off = 0; off < data.length; ) {
            int len = (int) Math.min(data.length - off, buf.size());
            buf.write(0, data, off, len);
            int done = 0;
            while (done < len) {
                long n = NativeIo.write(f, addr + done, len - done);
                if (n < 0) {
                    if (NativeIo.errno() == NativeIo.EINTR) {
                        continue;
                    }
                    throw new IOException("write to stdin failed: errno " + NativeIo.errno());
                }
                done += (int) n;
            }
            off += len;
        }
    }

    @Override
    void sendEof() {
        release();
    }

    @Override
    void release() {
        int f = fd.getAndSet(-1);
        if (f >= 0) {
            NativeIo.close(f);
        }
    }
}
