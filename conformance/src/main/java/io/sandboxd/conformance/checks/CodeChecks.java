package io.sandboxd.conformance.checks;

import static io.sandboxd.conformance.suite.CheckId.*;
import static io.sandboxd.conformance.suite.Expect.fail;

import io.grpc.Status;
import io.sandboxd.api.code.v1alpha1.ContextInfo;
import io.sandboxd.api.code.v1alpha1.ExecuteEvent;
import io.sandboxd.api.code.v1alpha1.ExecutionState;
import io.sandboxd.api.code.v1alpha1.MimeData;
import io.sandboxd.client.CodeContexts;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.conformance.suite.Check;
import io.sandboxd.conformance.suite.CheckContext;
import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.CheckSkipped;
import io.sandboxd.conformance.suite.Expect;
import io.sandboxd.conformance.suite.Suite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Checks of runtime-contract §4.4 (code contexts, level extended) with a python kernel. A runtime
 * without any python kernelspec skips them with that reason; one that does not serve the service
 * fails them. Kernels start in a second or two, so the checks share one context per suite run
 * (CODE-LIFE-001, the last, deletes it).
 */
public final class CodeChecks {
    /** A 1x1 PNG, sent by the kernel base64-encoded and expected back as these bytes. */
    static final byte[] PNG = Base64.getDecoder()
            .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==");

    private static final Map<Suite, String> SHARED = new WeakHashMap<>();

    private CodeChecks() {}

    public static void register(Map<CheckId, Check> m) {
        m.put(CODE_EXEC_001, CodeChecks::exec001);
        m.put(CODE_EXEC_002, CodeChecks::exec002);
        m.put(CODE_EXEC_003, CodeChecks::exec003);
        m.put(CODE_EXEC_004, CodeChecks::exec004);
        m.put(CODE_INT_001, CodeChecks::int001);
        m.put(CODE_ERR_001, CodeChecks::err001);
        m.put(CODE_LIFE_001, CodeChecks::life001);
    }

    /** A new python context; skips when the runtime says it has no python kernel. */
    static String create(CheckContext ctx) {
        try {
            return ctx.client().code().create("python").getId();
        } catch (GrpcCallException e) {
            if (e.status().getCode() == Status.Code.NOT_FOUND) {
                throw new CheckSkipped("the runtime has no python kernelspec: " + Expect.describe(e.status()));
            }
            throw fail("CreateContext(python): expected an id, got " + Expect.describe(e.status()));
        }
    }

    /** The suite's shared context, with x = 41 set. */
    static String shared(CheckContext ctx) {
        synchronized (SHARED) {
            String id = SHARED.get(ctx.suite());
            if (id == null) {
                id = create(ctx);
                expectOk(run(ctx, id, "x = 41"), "x = 41");
                SHARED.put(ctx.suite(), id);
            }
            return id;
        }
    }

    static CodeContexts.Result run(CheckContext ctx, String id, String code) {
        return Expect.ok(() -> ctx.client().code().run(id, code, Duration.ofSeconds(60)), "Execute " + quote(code));
    }

    static void expectOk(CodeContexts.Result r, String code) {
        Expect.equal(
                "status of " + quote(code),
                ExecutionState.EXECUTION_STATE_OK,
                r.status().getState());
    }

    private static String quote(String code) {
        return "\"" + code.replace("\n", "\\n") + "\"";
    }

    static void exec001(CheckContext ctx) {
        String id = shared(ctx);
        CodeContexts.Result r = run(ctx, id, "print(x + 1)");
        expectOk(r, "print(x + 1)");
        Expect.equal("stdout of print(x + 1)", "42\n", r.stdout());
        Expect.that(r.status().getExecutionCount() >= 2, "execution_count after two executions: " + r.status());
    }

    static void exec002(CheckContext ctx) {
        String id = shared(ctx);
        CodeContexts.Result r = run(ctx, id, "1 / 0");
        Expect.equal(
                "status of 1 / 0",
                ExecutionState.EXECUTION_STATE_ERROR,
                r.status().getState());
        ExecuteEvent err = r.outputs().stream()
                .filter(ExecuteEvent::hasError)
                .findFirst()
                .orElseThrow(() -> fail("1 / 0: no error event in " + r.outputs()));
        Expect.equal("error name", "ZeroDivisionError", err.getError().getName());
        Expect.that(!err.getError().getValue().isEmpty(), "error value is empty");
        Expect.that(err.getError().getTracebackCount() > 0, "error traceback is empty");
        Expect.equal(
                "stdout of print(x) afterwards",
                "41\n",
                run(ctx, id, "print(x)").stdout());
    }

    static void exec003(CheckContext ctx) {
        String id = shared(ctx);
        String code = "from IPython.display import display\ndisplay({'image/png': '"
                + Base64.getEncoder().encodeToString(PNG) + "', 'text/plain': 'dot'}, raw=True)";
        CodeContexts.Result r = run(ctx, id, code);
        expectOk(r, "display(image/png)");
        List<MimeData> data = r.outputs().stream()
                .filter(ExecuteEvent::hasRich)
                .flatMap(e -> e.getRich().getDataList().stream())
                .toList();
        MimeData png = data.stream()
                .filter(m -> m.getMimeType().equals("image/png"))
                .findFirst()
                .orElseThrow(() -> fail("no image/png output in " + r.outputs()));
        Expect.bytes("image/png", PNG, png.getBinary().toByteArray());
        Expect.that(
                data.stream()
                        .anyMatch(m -> m.getMimeType().equals("text/plain")
                                && m.getText().equals("dot")),
                "text/plain \"dot\" missing next to the image: " + data);
    }

    static void exec004(CheckContext ctx) throws Exception {
        String id = shared(ctx);
        expectOk(run(ctx, id, "import time\norder = []"), "order = []");
        List<CompletableFuture<CodeContexts.Result>> runs = new ArrayList<>();
        String[] codes = {"time.sleep(0.5)\norder.append('a')", "order.append('b')", "order.append('c')"};
        for (String code : codes) {
            runs.add(CompletableFuture.supplyAsync(() -> run(ctx, id, code)));
            Thread.sleep(100); // submitted in this order, the first still running when the others arrive
        }
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        Expect.equal(
                "order in which the kernel ran them",
                "['a', 'b', 'c']\n",
                run(ctx, id, "print(order)").stdout());
    }

    static void int001(CheckContext ctx) throws Exception {
        String id = shared(ctx);
        CodeContexts codeService = ctx.client().code();
        try (CodeContexts.Execution e =
                codeService.execute(id, "print('looping', flush=True)\nwhile True:\n    pass", null)) {
            ExecuteEvent first = e.next();
            Expect.that(first != null && first.hasStream(), "expected the loop's first print, got " + first);
            Thread.sleep(200);
            long t0 = System.nanoTime();
            Expect.ok(() -> codeService.interrupt(id), "Interrupt");
            ExecuteEvent last = null;
            boolean keyboardInterrupt = false;
            for (ExecuteEvent ev; (ev = e.next()) != null; ) {
                keyboardInterrupt |= ev.hasError() && ev.getError().getName().equals("KeyboardInterrupt");
                last = ev;
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            Expect.that(millis < 2000, "the interrupted execution ended " + millis + " ms after Interrupt");
            Expect.that(last != null && last.hasStatus(), "the stream's last event is not a status: " + last);
            Expect.equal(
                    "status after Interrupt",
                    ExecutionState.EXECUTION_STATE_ERROR,
                    last.getStatus().getState());
            Expect.that(keyboardInterrupt, "no KeyboardInterrupt error event");
        }
        Expect.equal(
                "stdout of print(x) afterwards",
                "41\n",
                run(ctx, id, "print(x)").stdout());
    }

    static void err001(CheckContext ctx) {
        shared(ctx); // a python kernel is installed (else skipped): the message must name it
        Status s = Expect.grpc(
                () -> ctx.client().code().create("no-such-language-" + System.nanoTime()),
                Status.Code.NOT_FOUND,
                "CreateContext(unknown language)");
        String d = s.getDescription() == null ? "" : s.getDescription();
        Expect.that(d.contains("python"), "the NOT_FOUND message does not name the installed kernels: " + d);
    }

    static void life001(CheckContext ctx) {
        String id = shared(ctx);
        CodeContexts code = ctx.client().code();
        ContextInfo listed = code.list().stream()
                .filter(c -> c.getId().equals(id))
                .findFirst()
                .orElseThrow(() -> fail("List does not show context " + id));
        Expect.that(listed.getKernelPid() > 0, "List: kernel_pid is not set: " + listed);
        ContextInfo restarted = Expect.ok(() -> code.restart(id), "Restart");
        Expect.equal("id after Restart", id, restarted.getId());
        Expect.equal(
                "'x' in dir() after Restart",
                "False\n",
                run(ctx, id, "print('x' in dir())").stdout());
        Expect.ok(() -> code.delete(id), "Delete");
        synchronized (SHARED) {
            SHARED.remove(ctx.suite());
        }
        Expect.grpc(() -> code.run(id, "1", null), Status.Code.NOT_FOUND, "Execute after Delete");
    }
}
