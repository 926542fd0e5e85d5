package io.sandboxd.bench.code;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The baseline of {@link CodeBenchmark}: {@code direct_kernel.py} (jupyter_client driving
 * ipykernel, no daemon) kept running, asked for one measurement at a time so that its runs can be
 * interleaved with the daemon's.
 */
final class DirectKernel implements AutoCloseable {
    private final Process process;
    private final Writer in;
    private final BufferedReader out;
    private final Path err;

    private DirectKernel(Process process, Path err) {
        this.process = process;
        this.in = process.outputWriter(StandardCharsets.UTF_8);
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.err = err;
    }

    static DirectKernel start(Path work) throws IOException {
        Path script = work.resolve("direct_kernel.py");
        try (InputStream s = DirectKernel.class.getResourceAsStream("direct_kernel.py")) {
            Files.copy(s, script);
        }
        Path err = work.resolve("direct.err");
        Process p = new ProcessBuilder("/usr/bin/python3", script.toString())
                .redirectError(err.toFile())
                .start();
        return new DirectKernel(p, err);
    }

    /** Starts a kernel, runs 1+1, shuts it down: the milliseconds to the result. */
    double cold() throws IOException {
        return ask("cold").get("ms").getAsDouble();
    }

    /** Starts the kernel the other calls use and warms it up with {@code warmup} runs of 1+1. */
    void start(int warmup) throws IOException {
        ask("start " + warmup);
    }

    /** {@code n} round trips of 1+1, in milliseconds. */
    double[] rtt(int n) throws IOException {
        JsonArray a = ask("rtt " + n).getAsJsonArray("ms");
        double[] ms = new double[a.size()];
        for (int i = 0; i < ms.length; i++) {
            ms[i] = a.get(i).getAsDouble();
        }
        return ms;
    }

    /** Makes {@code img}, base64 of {@code bytes} random bytes, in the kernel. */
    void prepare(long bytes) throws IOException {
        ask("prepare " + bytes);
    }

    /** One display of {@code img} as image/png, in milliseconds. */
    double image() throws IOException {
        return ask("image").get("ms").getAsDouble();
    }

    private JsonObject ask(String command) throws IOException {
        in.write(command + "\n");
        in.flush();
        String line = out.readLine();
        if (line == null) {
            throw new IOException("the jupyter_client baseline ended: " + Files.readString(err));
        }
        return JsonParser.parseString(line).getAsJsonObject();
    }

    @Override
    public void close() throws Exception {
        try {
            in.write("quit\n");
            in.close();
        } catch (IOException e) {
            // already gone
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
