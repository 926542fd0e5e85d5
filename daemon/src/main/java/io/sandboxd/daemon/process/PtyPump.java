package io.sandboxd.daemon.process;

import java.io.IOException;

/**
 * Pumps a PTY master with poll(2) + read(2) on the raw fd. Reading until EIO (rather than until
 * the leader is reaped) is what delivers the terminal's tail: the kernel flushes pending output
 * before it reports EIO. A wake-up pipe lets the grace timer stop a pump whose terminal is held
 * open by a background child.
 */
final class PtyPump extends OutputPump {
    private final int master;
    private final int[] wake = new int[2];
    private final Object wakeLock = new Object();
    private boolean released;

    PtyPump(int master, OutputSink sink, int chunkSize, ProcessMetrics metrics) throws IOException {
        super(OutputKind.STDOUT, sink, chunkSize, metrics);
        this.master = master;
        if (NativeIo.pipe2(wake, NativeIo.O_CLOEXEC | NativeIo.O_NONBLOCK) != 0) {
            throw new IOException("pipe2 failed: errno " + NativeIo.errno());
        }
    }

    @Override
    int read(byte[] buf, int off, int len) throws IOException {
        return readWithin(buf, off, len, -1);
    }

    private int readWithin(byte[] buf, int off, int len, int timeoutMillis) throws IOException {
        int[] fds = {master, NativeIo.POLLIN, wake[0], NativeIo.POLLIN};
        while (true) {
            fds[1] = NativeIo.POLLIN;
            fds[3] = NativeIo.POLLIN;
            int r = NativeIo.poll(fds, 2, timeoutMillis);
            if (r < 0) {
                if (NativeIo.errno() == NativeIo.EINTR) {
                    continue;
                }
                return -1;
            }
            if (r == 0) {
                return 0;
            }
            if ((fds[3] >>> 16) != 0) {
                return -1; // woken: stop
            }
            if ((fds[1] >>> 16) == 0) {
                continue;
            }
            byte[] target = off == 0 ? buf : new byte[len];
            long n = NativeIo.read(master, target, len);
            if (n > 0) {
                if (target != buf) {
                    System.arraycopy(target, 0, buf, off, (int) n);
                }
                return (int) n;
            }
            if (n == 0) {
                return -1;
            }
            int e = NativeIo.errno();
            if (e == NativeIo.EINTR || e == NativeIo.EAGAIN) {
                continue;
            }
            return -1; // EIO: every slave fd is closed and the buffer is drained
        }
    }

    @Override
    int available() throws IOException {
        int[] fds = {master, NativeIo.POLLIN};
        int r = NativeIo.poll(fds, 1, 0);
        return r > 0 && ((fds[1] >>> 16) & NativeIo.POLLIN) != 0 ? 1 : 0;
    }

    @Override
    void stop() {
        synchronized (wakeLock) {
            if (!released) {
                NativeIo.write(wake[1], new byte[1], 1);
            }
        }
    }

    @Override
    void release() {
        synchronized (wakeLock) {
            if (!released) {
                released = true;
                NativeIo.close(wake[0]);
                NativeIo.close(wake[1]);
            }
        }
    }
}
