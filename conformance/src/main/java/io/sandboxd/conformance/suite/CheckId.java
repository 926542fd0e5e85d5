package io.sandboxd.conformance.suite;

import static io.sandboxd.conformance.suite.Level.CORE;
import static io.sandboxd.conformance.suite.Level.EXTENDED;
import static io.sandboxd.conformance.suite.Level.RECOMMENDED;

/**
 * Every check of the suite, in run order. The id is stable: vendors file bugs against it, so never
 * renumber or reuse one; retire it instead. {@code section} is the section of docs/runtime-contract.md
 * the statement comes from; {@code level} is CORE for a [wire] statement and RECOMMENDED for an [ours] one.
 */
public enum CheckId {
    // §1.1 wire shape
    PROC_WIRE_001(
            CORE,
            "1.1",
            "All five methods are served under /process.v1.ProcessService/{Start,Execute,WriteStdin,SendSignal,ResizeTTY}."),
    PROC_WIRE_002(
            CORE,
            "1.1",
            "Responses carry only fields of the upstream proto (no unknown fields in StartResponse, ExecuteResponse and the empty responses)."),
    PROC_WIRE_003(
            CORE,
            "1.1",
            "The process.v1 descriptor served by reflection has exactly the upstream messages, fields (name, number, type, label), enum values and methods."),
    PROC_WIRE_004(RECOMMENDED, "1.1", "The gRPC server registers grpc.health.v1.Health and it reports SERVING."),
    PROC_WIRE_005(
            RECOMMENDED,
            "1.1",
            "The gRPC server registers server reflection, listing process.v1.ProcessService and grpc.health.v1.Health."),

    // §1.2 command construction
    PROC_CMD_001(CORE, "1.2", "Execute with a missing config or an empty command fails with INVALID_ARGUMENT."),
    PROC_CMD_002(CORE, "1.2", "Start with an empty command fails with INVALID_ARGUMENT before any stream event."),
    PROC_CMD_003(
            CORE,
            "1.2",
            "command[0] without '/' is looked up on PATH and run without a shell: arguments reach the program verbatim."),
    PROC_CMD_004(CORE, "1.2", "env_vars are merged over the daemon environment: the daemon's variables stay visible."),
    PROC_CMD_005(CORE, "1.2", "A request env_vars value overrides the daemon's value of the same variable."),
    PROC_CMD_006(RECOMMENDED, "1.2", "PWD is set to the real working directory of the process."),
    PROC_CMD_007(CORE, "1.2", "A binary that does not exist fails with NOT_FOUND (Execute and Start)."),
    PROC_CMD_008(CORE, "1.2", "A binary that is not executable fails with PERMISSION_DENIED."),
    PROC_CMD_009(RECOMMENDED, "1.2", "Start failure messages do not leak host paths outside the root."),
    PROC_CMD_010(CORE, "1.2", "A Start process leads its own process group."),
    PROC_CMD_011(RECOMMENDED, "1.2", "An Execute process leads its own process group."),
    PROC_CWD_001(CORE, "1.2", "An unset or empty cwd runs the process in the root directory."),
    PROC_CWD_002(CORE, "1.2", "A relative cwd is resolved under the root."),
    PROC_CWD_003(CORE, "1.2", "An absolute cwd is re-rooted: '/x' means '<root>/x'."),
    PROC_CWD_004(CORE, "1.2", "An absolute cwd that starts with the root's own path means that same path."),
    PROC_CWD_005(
            CORE,
            "1.2",
            "A cwd escaping the root with '..' fails with PERMISSION_DENIED (an absolute '/../..' may run in the root instead)."),
    PROC_CWD_006(CORE, "1.2", "A cwd escaping the root through a symlink fails with PERMISSION_DENIED."),
    PROC_CWD_007(
            RECOMMENDED,
            "1.2",
            "A cwd that does not exist fails with NOT_FOUND whose message names the cwd, not the binary."),
    PROC_CWD_008(RECOMMENDED, "1.2", "A cwd that is a regular file fails with INVALID_ARGUMENT."),

    // §1.3 Start
    PROC_START_001(CORE, "1.3", "The first stream message is init with process_id > 0."),
    PROC_START_002(
            CORE,
            "1.3",
            "Exactly one init and one exit are sent, exit is the last message, and the stream ends with status OK."),
    PROC_START_003(CORE, "1.3", "exit.exit_code is the process's own exit code."),
    PROC_START_004(CORE, "1.3", "Process ids are positive and never reused (sequential and concurrent Starts)."),
    PROC_START_005(
            CORE,
            "1.3",
            "The process is registered before init: WriteStdin and SendSignal work as soon as init arrives."),
    PROC_START_006(
            CORE,
            "1.3",
            "stdout and stderr arrive as their own events carrying the raw bytes (NUL and non-UTF-8 included)."),
    PROC_START_007(CORE, "1.3", "Order is preserved within stdout and within stderr (large interleaved output)."),
    PROC_START_008(CORE, "1.3", "No stdout/stderr event carries more than --stream-chunk-size bytes."),
    PROC_START_009(RECOMMENDED, "1.3", "A small write reaches the client promptly, long before the process exits."),
    PROC_START_010(RECOMMENDED, "1.3", "All output the process wrote (1 MiB) is delivered before exit."),
    PROC_START_011(
            RECOMMENDED,
            "1.3",
            "When a background child keeps the pipes open, exit follows within 2 s of the leader's exit."),
    PROC_START_012(RECOMMENDED, "1.3", "Cancelling the stream kills the whole process group."),
    PROC_START_013(RECOMMENDED, "1.3", "When the stream's deadline passes, the whole process group is killed."),
    PROC_START_014(
            CORE,
            "1.3",
            "After the stream ends the id is forgotten: WriteStdin, SendSignal and ResizeTTY return NOT_FOUND."),
    PROC_TTY_001(CORE, "1.3", "With pty the process runs on a real terminal (stdin and stdout are ttys)."),
    PROC_TTY_002(CORE, "1.3", "With pty, stderr is merged into stdout events: no stderr event is sent."),
    PROC_TTY_003(CORE, "1.3", "The initial pty size is set before the program runs: `stty size` prints 'rows cols'."),
    PROC_TTY_004(RECOMMENDED, "1.3", "A pty with 0 cols and 0 rows gets 80x24."),
    PROC_TTY_005(RECOMMENDED, "1.3", "TERM is xterm-256color in a pty unless env_vars sets it."),
    PROC_TTY_006(RECOMMENDED, "1.3", "All pty output, the tail included, is delivered before exit."),

    // §1.4 Execute
    PROC_EXEC_001(CORE, "1.4", "Execute returns exit_code, stdout and stderr; a non-zero exit is an OK response."),
    PROC_EXEC_002(CORE, "1.4", "Execute's stdin is /dev/null: a reader of stdin gets EOF at once."),
    PROC_EXEC_003(RECOMMENDED, "1.4", "When the Execute deadline passes, the process group is killed."),
    PROC_EXEC_004(
            RECOMMENDED,
            "1.4",
            "Output beyond --execute-output-limit keeps head and tail and reports the dropped bytes in trailers sandboxd-stdout-truncated-bytes / sandboxd-stderr-truncated-bytes."),
    PROC_EXEC_005(
            RECOMMENDED,
            "1.4",
            "An endless writer under a deadline ends with DEADLINE_EXCEEDED and the runtime keeps serving."),
    PROC_EXEC_006(
            RECOMMENDED,
            "1.4",
            "A background child keeping the pipes open does not turn success into an error; the response comes within 2 s."),

    // §1.5 WriteStdin
    PROC_STDIN_001(CORE, "1.5", "WriteStdin with an unknown id returns NOT_FOUND."),
    PROC_STDIN_002(CORE, "1.5", "input bytes reach the process's stdin in order."),
    PROC_STDIN_003(CORE, "1.5", "Empty input and an empty payload are no-op OK."),
    PROC_STDIN_004(CORE, "1.5", "eof in pipe mode closes stdin: the child reads EOF and exits."),
    PROC_STDIN_005(RECOMMENDED, "1.5", "Concurrent WriteStdin calls for one process do not interleave."),
    PROC_STDIN_006(
            RECOMMENDED,
            "1.5",
            "eof in pty mode sends ^D: the program reads EOF and exits normally instead of being hung up."),
    PROC_STDIN_007(RECOMMENDED, "1.5", "A repeated eof is OK."),
    PROC_STDIN_008(RECOMMENDED, "1.5", "input after eof returns FAILED_PRECONDITION."),
    PROC_STDIN_009(
            RECOMMENDED, "1.5", "input after the process exited (stream still open) returns FAILED_PRECONDITION."),
    PROC_STDIN_010(
            RECOMMENDED,
            "1.5",
            "A write the child never reads honours the RPC deadline (DEADLINE_EXCEEDED) and does not block the runtime."),

    // §1.6 SendSignal
    PROC_SIG_001(CORE, "1.6", "SendSignal with an unknown id returns NOT_FOUND."),
    PROC_SIG_002(
            CORE,
            "1.6",
            "The id is checked before the signal: an unknown id with SIGNAL_UNSPECIFIED returns NOT_FOUND."),
    PROC_SIG_003(CORE, "1.6", "SIGNAL_UNSPECIFIED or a value other than 2, 9, 15 returns INVALID_ARGUMENT."),
    PROC_SIG_004(CORE, "1.6", "SIGINT, SIGTERM and SIGKILL end a running process with a non-zero exit code."),
    PROC_SIG_005(CORE, "1.6", "Signals reach the whole process group: a background child dies too."),
    PROC_SIG_006(RECOMMENDED, "1.3", "A process killed by signal N reports exit code 128+N."),
    PROC_SIG_007(RECOMMENDED, "1.6", "Signalling a process that exited but whose stream is still open is an OK no-op."),

    // §1.7 ResizeTTY
    PROC_TTY_007(CORE, "1.7", "ResizeTTY with an unknown id returns NOT_FOUND."),
    PROC_TTY_008(CORE, "1.7", "ResizeTTY on a process without pty returns FAILED_PRECONDITION."),
    PROC_TTY_009(RECOMMENDED, "1.7", "ResizeTTY with cols or rows of 0 or above 65535 returns INVALID_ARGUMENT."),
    PROC_TTY_010(CORE, "1.7", "After ResizeTTY the program gets SIGWINCH and `stty size` prints the new size."),

    // §2.1 paths
    FS_PATH_001(
            CORE,
            "2.1",
            "An encoded path (dir%2Fsub%2Ffile.txt, as the SDKs send it) addresses <root>/dir/sub/file.txt."),
    FS_PATH_002(CORE, "2.1", "A literal multi-segment path addresses the same file as its encoded form."),
    FS_PATH_003(CORE, "2.1", "/v1/files/ (empty path) is the root directory."),
    FS_PATH_004(CORE, "2.1", "A leading '/' (%2F) is re-rooted: '/x' means '<root>/x'."),
    FS_PATH_005(
            CORE,
            "2.1",
            "An encoded '..' (%2E%2E) leaving the root gets 403 PERMISSION_DENIED on GET, HEAD, PUT and DELETE."),
    FS_PATH_006(CORE, "2.1", "A literal '..' segment leaving the root gets 403 PERMISSION_DENIED (never a redirect)."),
    FS_PATH_007(CORE, "2.1", "'..' inside an encoded segment (a%2F..%2F..%2Fx) that leaves the root gets 403."),
    FS_PATH_008(RECOMMENDED, "2.1", "'.' segments and repeated slashes are ignored, without a redirect."),
    FS_PATH_009(CORE, "2.1", "A symlink inside the root is followed."),
    FS_PATH_010(CORE, "2.1", "A path whose symlink resolution leaves the root gets 403 (GET, HEAD, PUT and DELETE)."),
    FS_PATH_011(RECOMMENDED, "2.1", "A symlink swapped while requests run never lets a request escape the root."),
    FS_PATH_012(RECOMMENDED, "2.1", "A NUL byte in the path gets 400."),
    FS_PATH_013(RECOMMENDED, "2.1", "A path through a regular file (file.txt/x) gets 404."),
    FS_PATH_014(RECOMMENDED, "2.1", "A name too long for the filesystem gets 400."),
    FS_PATH_015(
            CORE,
            "2.1",
            "A name that is not UTF-8 (made by a process) is addressed by its percent-encoded bytes (%FF%FE) for GET, PUT and DELETE, listed with U+FFFD for each invalid byte, and removed by a recursive DELETE of its directory."),

    // §2.2 errors
    FS_ERR_001(
            CORE,
            "2.2",
            "Handler errors have Content-Type application/json and a body {code, message}, both non-empty, code matching the status."),
    FS_ERR_002(RECOMMENDED, "2.2", "An unknown route gets 404 with the JSON error body."),
    FS_ERR_003(RECOMMENDED, "2.2", "A wrong method gets 405 with an Allow header and the JSON error body."),
    FS_ERR_004(RECOMMENDED, "2.2", "Client errors are never answered with a 5xx (the SDKs retry those)."),
    FS_ERR_005(RECOMMENDED, "2.2", "Error messages do not contain host paths outside the root."),

    // §2.3 GET / HEAD
    FS_GET_001(
            CORE,
            "2.3",
            "GET of a file returns 200 application/octet-stream with the exact bytes and the exact Content-Length."),
    FS_GET_002(CORE, "2.3", "GET of a file sends Last-Modified as an HTTP-date."),
    FS_GET_003(RECOMMENDED, "2.3", "GET of a file sends an ETag and Accept-Ranges: bytes."),
    FS_GET_004(
            RECOMMENDED,
            "2.3",
            "A single Range gets 206 with Content-Range and those bytes; an unsatisfiable one gets 416."),
    FS_GET_005(RECOMMENDED, "2.3", "If-None-Match with the ETag, and If-Modified-Since with Last-Modified, get 304."),
    FS_GET_006(
            CORE,
            "2.3",
            "GET of a directory returns 200 application/json {\"path\": \"/<requested path>\", \"entries\": [...]}."),
    FS_GET_007(CORE, "2.3", "An empty directory lists \"entries\": [] (never null or missing)."),
    FS_GET_008(CORE, "2.3", "Entries are sorted by name byte-wise and never include '.' or '..'."),
    FS_GET_009(
            CORE,
            "2.3",
            "Each entry has name, size, type (file|directory), modified_at and mode with the right JSON types and values."),
    FS_GET_010(CORE, "2.3", "modified_at is RFC 3339 in UTC with whole seconds and a Z suffix."),
    FS_GET_011(CORE, "2.3", "Symlinks are listed as their target (type and size of the target)."),
    FS_GET_012(CORE, "2.3", "Symlinks that escape the root or dangle are omitted from listings."),
    FS_GET_013(RECOMMENDED, "2.3", "In-flight upload temp files are not listed."),
    FS_GET_014(CORE, "2.3", "GET of a missing path returns 404 NOT_FOUND."),
    FS_GET_015(CORE, "2.3", "HEAD returns the same status and headers as GET and no body (file, directory, missing)."),
    FS_GET_016(RECOMMENDED, "2.3", "GET of a FIFO returns 400 without hanging."),
    FS_GET_017(
            RECOMMENDED,
            "2.3",
            "A listed name that is not UTF-8 also has name_encoded, which addresses the file; entries with UTF-8 names (a real U+FFFD too) have no name_encoded."),

    // §2.4 PUT
    FS_PUT_001(CORE, "2.4", "PUT stores the raw body exactly, whatever the Content-Type (or none)."),
    FS_PUT_002(CORE, "2.4", "PUT with multipart/form-data stores the content of the 'file' part."),
    FS_PUT_003(CORE, "2.4", "multipart/form-data without a 'file' part gets 400."),
    FS_PUT_004(CORE, "2.4", "The mode query is applied exactly (0755, 0600, 0640)."),
    FS_PUT_005(CORE, "2.4", "Without mode a new file gets 0644."),
    FS_PUT_006(CORE, "2.4", "A mode not matching ^0[0-7]{3}$ gets 400 INVALID_ARGUMENT."),
    FS_PUT_007(CORE, "2.4", "Missing parent directories are created."),
    FS_PUT_008(CORE, "2.4", "PUT onto an existing directory gets 400."),
    FS_PUT_009(
            CORE,
            "2.4",
            "Overwrites are atomic: concurrent readers see the old or the new content, never a mix or a part."),
    FS_PUT_010(CORE, "2.4", "PUT answers 204 No Content without a body, on create and on overwrite."),
    FS_PUT_011(RECOMMENDED, "2.4", "An aborted upload leaves no file and no temp file behind."),
    FS_PUT_012(RECOMMENDED, "2.4", "A permission problem gets 403."),
    FS_PUT_013(
            RECOMMENDED,
            "2.4",
            "Content-Digest: sha-256=:<base64>: is verified; a mismatch gets 400 and writes nothing."),
    FS_PUT_014(RECOMMENDED, "2.4", "X-Content-SHA256: <hex> is verified; a mismatch gets 400 and writes nothing."),
    FS_PUT_015(RECOMMENDED, "2.4", "If-Match with a stale ETag gets 412 (file unchanged); with the current ETag, 204."),
    FS_PUT_016(RECOMMENDED, "2.4", "If-None-Match: * gets 412 when the file exists and 204 when it does not."),

    // §2.5 DELETE
    FS_DEL_001(CORE, "2.5", "DELETE of a file answers 204 without a body and the file is gone."),
    FS_DEL_002(CORE, "2.5", "DELETE of a missing path returns 404 NOT_FOUND."),
    FS_DEL_003(CORE, "2.5", "recursive other than true or false gets 400."),
    FS_DEL_004(
            CORE,
            "2.5",
            "A non-empty directory without recursive=true gets 409 CONFLICT; with it, 204 and the directory is gone."),
    FS_DEL_005(CORE, "2.5", "An empty directory is deleted without recursive=true."),
    FS_DEL_006(CORE, "2.5", "DELETE of the root without recursive=true gets 409 CONFLICT."),
    FS_DEL_007(RECOMMENDED, "2.5", "DELETE of a symlink removes the link and leaves its target untouched."),

    // §2.6 health and metadata
    RT_HEALTH_001(
            CORE,
            "2.6",
            "GET /v1/health returns 200 application/json {\"status\": \"ok\", \"uptime_seconds\": <integer >= 0>}."),
    RT_META_001(CORE, "2.6", "GET /v1/metadata returns 200 application/json {\"env\": {<string>: <string>}}."),
    RT_META_002(
            CORE,
            "2.6",
            "metadata env holds the daemon's variables that start with the prefix, with their values, and nothing else (credential names aside)."),
    RT_META_003(
            RECOMMENDED,
            "2.6",
            "A name with a credential word as a whole '_'-separated word is withheld; one that only contains it (SANDBOX_MONKEY) is kept."),
    RT_METRICS_001(RECOMMENDED, "2.6", "GET /metrics returns Prometheus text exposition."),

    // §4.3 file operations (extended: /sandboxd/v1alpha1/fs/)
    FS_STAT_001(
            EXTENDED,
            "4.3",
            "fs/stat of a file gives type, size, a four-digit mode, modified_at and the ETag GET /v1/files sends."),
    FS_STAT_002(
            EXTENDED,
            "4.3",
            "fs/stat of a symlink describes the link: type symlink, its target as stored, and link_resolves inside/outside."),
    FS_MKDIR_001(
            EXTENDED,
            "4.3",
            "fs/mkdir with parents=true creates missing parents (201) and accepts an existing directory (204); without it an existing name is 409."),
    FS_MOVE_001(
            EXTENDED,
            "4.3",
            "fs/move refuses an existing destination with 409 unless overwrite=true; a directory into itself is 400."),
    FS_CHMOD_001(EXTENDED, "4.3", "fs/chmod sets the mode exactly; setuid/setgid bits are 400."),
    FS_LIST_001(
            EXTENDED,
            "4.3",
            "fs/list pages put together equal one page: depth-first, names byte-wise, each next_cursor resuming right after the last entry."),
    FS_ARCHIVE_001(
            EXTENDED,
            "4.3",
            "A directory downloaded with fs/archive and uploaded again under another name has the same files, contents and modes."),
    FS_ARCHIVE_002(
            EXTENDED,
            "4.3",
            "An fs/archive upload with a '..' entry is 400 and leaves nothing: neither the target nor anything outside it."),
    FS_ARCHIVE_003(
            EXTENDED,
            "4.3",
            "An fs/archive upload with sync=false puts the same tree in place; sync takes only true or false (400 otherwise, nothing written)."),
    FS_CONFINED_001(
            EXTENDED,
            "4.3",
            "Paths of the file operations are confined: a '..' above the root or a symlink out of it is 403 on stat, list, mkdir, move and archive."),

    // §3 access token
    AUTH_001(
            RECOMMENDED,
            "3",
            "With a token configured, REST calls without Authorization get 401 UNAUTHENTICATED with the JSON error body."),
    AUTH_002(
            RECOMMENDED, "3", "With a token configured, REST calls with a wrong bearer token get 401 UNAUTHENTICATED."),
    AUTH_003(RECOMMENDED, "3", "With a token configured, /v1/health needs no token."),
    AUTH_004(
            RECOMMENDED, "3", "With a token configured, gRPC calls without or with a wrong token get UNAUTHENTICATED."),
    AUTH_005(RECOMMENDED, "3", "With a token configured, the gRPC health service needs no token."),

    // §4.1 durable processes (sandboxd.durable.v1alpha1.DurableProcessService)
    DUR_WIRE_001(EXTENDED, "4.1", "sandboxd.durable.v1alpha1.DurableProcessService is served on the gRPC port."),
    DUR_START_001(
            EXTENDED,
            "4.1",
            "Start streams started{process_id > 0} first, then the output with offsets from 0, then the exit record last, and ends OK."),
    DUR_START_002(EXTENDED, "4.1", "With detach, the process keeps running after its starting stream ends."),
    DUR_START_003(EXTENDED, "4.1", "Without detach, the end of the starting stream kills the whole process tree."),
    DUR_TAG_001(
            EXTENDED,
            "4.1",
            "A tag is unique among live processes (ALREADY_EXISTS); Get, Attach and Wait accept it; it is free again once its process ended."),
    DUR_ID_001(
            EXTENDED,
            "4.1",
            "Ids are one space: process.v1 WriteStdin and SendSignal reach a process of this service."),
    DUR_ID_002(
            EXTENDED,
            "4.1",
            "A process.v1 Start process is listed while it runs and attachable as a second viewer; its own stream is unchanged."),
    DUR_ATTACH_001(
            EXTENDED,
            "4.1",
            "Attach replays exactly the bytes from the offsets given, each output event carrying its stream and first byte's offset."),
    DUR_ATTACH_002(
            EXTENDED,
            "4.1",
            "A client that reattaches with the last offsets it saw, while the process runs, gets every byte exactly once."),
    DUR_ATTACH_003(EXTENDED, "4.1", "An offset beyond what a stream has written fails with OUT_OF_RANGE."),
    DUR_ATTACH_004(EXTENDED, "4.1", "Attach, Get and Wait of an unknown id or tag fail with NOT_FOUND."),
    DUR_ATTACH_005(
            EXTENDED,
            "4.1",
            "Output no longer retained arrives as one gap event (stream, offset, exact length, RETENTION), then the rest byte-exact."),
    DUR_ATTACH_006(
            EXTENDED,
            "4.1",
            "A silent attach stream gets heartbeat events at the configured interval (needs --attach-heartbeat)."),
    DUR_ATTACH_007(EXTENDED, "4.1", "A stalled attacher stalls neither the process nor another attacher."),
    DUR_LIST_001(
            EXTENDED,
            "4.1",
            "List shows running processes (id, tag, command, RUNNING, pid); with all, ended ones with their exit record too."),
    DUR_LIST_002(EXTENDED, "4.1", "Get of a running process reports the CPU time and RSS of its whole process tree."),
    DUR_WAIT_001(
            EXTENDED,
            "4.1",
            "Wait returns the exit record once the process ends, at once when it has: code, EXITED or SIGNALED and the signal."),
    DUR_TIMEOUT_001(
            EXTENDED,
            "4.1",
            "A server-side timeout ends the whole tree (SIGTERM, a grace, then SIGKILL) and the exit record says timed_out."),
    DUR_PTY_001(
            EXTENDED,
            "4.1",
            "A PTY process's output comes as stdout; after process.v1 ResizeTTY a reattaching client sees output at the new size."),
    // §4.2 filesystem watch (extended): GET /sandboxd/v1alpha1/watch
    WATCH_EVT_001(
            EXTENDED,
            "4.2",
            "A process writing and deleting a file in a watched directory gives created (entry file), modified and deleted, in order, with increasing ids."),
    WATCH_EVT_002(
            EXTENDED,
            "4.2",
            "A recursive watch reports every entry made in new nested directories, also those made before the directories could be watched, and watches them."),
    WATCH_EVT_003(
            EXTENDED,
            "4.2",
            "A rename inside the watched tree is one moved event with the old and the new path; a rename out is deleted, one in is created with its contents."),
    WATCH_EVT_004(
            EXTENDED,
            "4.2",
            "Entries matching exclude globs (.git, node_modules, *.log) are not reported at any depth."),
    WATCH_RES_001(
            EXTENDED,
            "4.2",
            "A watch resumed with a cursor gets every event after it and nothing before; a cursor that is not retained gets resync first."),
    WATCH_SSE_001(
            EXTENDED,
            "4.2",
            "The watch is text/event-stream: each event is an id: line, a data: line of JSON whose seq equals the id, and an empty line."),
    WATCH_ERR_001(
            EXTENDED,
            "4.2",
            "A watch of a missing path is 404, of a symlink out of the root 403, and one with a bad or missing parameter 400, as JSON errors."),
    WATCH_END_001(
            EXTENDED,
            "4.2",
            "Deleting the watched directory reports its deletion, then an error event (NOT_FOUND), and the stream ends."),
    // §4.4 code contexts (extended): a python kernelspec; skipped when the runtime has none
    CODE_EXEC_001(
            EXTENDED,
            "4.4",
            "CreateContext(python) answers with an id; state is kept across executions (x = 41, then print(x + 1) prints 42) and each ends with status OK last."),
    CODE_EXEC_002(
            EXTENDED,
            "4.4",
            "An exception gives an error event (name, value, traceback) and status ERROR; the context keeps its state."),
    CODE_EXEC_003(
            EXTENDED,
            "4.4",
            "A display of image/png arrives as the raw (base64-decoded) bytes, next to its text/plain."),
    CODE_EXEC_004(
            EXTENDED, "4.4", "Executions submitted together on one context run one at a time in submission order."),
    CODE_INT_001(
            EXTENDED,
            "4.4",
            "Interrupt stops a busy loop within 2 s (status ERROR, KeyboardInterrupt) and the state survives."),
    CODE_ERR_001(
            EXTENDED,
            "4.4",
            "CreateContext for an unknown language fails with NOT_FOUND naming the installed kernels."),
    CODE_LIFE_001(
            EXTENDED,
            "4.4",
            "Restart keeps the id and clears the state; List shows the context with its kernel pid; after Delete it is NOT_FOUND."),

    // Destructive, opt-in; runs last because it empties the root.
    FS_DEL_008(
            CORE,
            "2.5",
            "DELETE of the root with recursive=true removes its contents and keeps the root (opt-in: --allow-root-wipe).");

    private final Level level;
    private final String section;
    private final String statement;

    CheckId(Level level, String section, String statement) {
        this.level = level;
        this.section = section;
        this.statement = statement;
    }

    /** The public id, e.g. {@code FS-PUT-004}. */
    public String id() {
        return name().replace('_', '-');
    }

    public Level level() {
        return level;
    }

    /** The section of docs/runtime-contract.md, e.g. {@code 2.4} (runtime-contract §2.4). */
    public String section() {
        return section;
    }

    public String statement() {
        return statement;
    }

    public static CheckId byId(String id) {
        for (CheckId c : values()) {
            if (c.id().equalsIgnoreCase(id.trim())) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown check id \"" + id + "\"");
    }
}
