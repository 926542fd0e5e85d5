package io.sandboxd.client.cli;

import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.client.DurableProcesses;
import io.sandboxd.client.SandboxdClient;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code ps}: the daemon's processes. */
@CommandLine.Command(
        name = "ps",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Lists the running processes (durable ones and process.v1 Start ones): id, tag, state, "
                    + "OS pid, exit code, command. --all: also ended processes still retained."
        })
final class PsCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions conn;

    @Option(names = "--all", description = "Also ended processes the daemon still retains.")
    boolean all;

    @Option(
            names = "--json",
            description =
                    "One JSON object: {\"processes\":[{\"id\",\"tag\",\"command\",\"pty\","
                            + "\"state\",\"pid\",\"pgid\",\"start_time\",\"end_time\",\"exit\",\"stdout_written\",\"stderr_written\"…}]}.")
    boolean json;

    @Override
    public Integer call() {
        List<ProcessInfo> ps;
        try (SandboxdClient client = conn.client()) {
            ps = client.durable().list(all);
        }
        if (json) {
            ObjectNode root = DurableCli.JSON.createObjectNode();
            ArrayNode a = root.putArray("processes");
            ps.forEach(p -> a.add(DurableCli.toJson(p)));
            System.out.println(DurableCli.JSON.writeValueAsString(root));
        } else {
            System.out.println(table(ps));
        }
        System.out.flush();
        return 0;
    }

    static String table(List<ProcessInfo> ps) {
        StringBuilder b = new StringBuilder(
                String.format("%-8s %-16s %-10s %-8s %-5s %s", "ID", "TAG", "STATE", "PID", "EXIT", "COMMAND"));
        for (ProcessInfo p : ps) {
            b.append('\n')
                    .append(String.format(
                            "%-8d %-16s %-10s %-8s %-5s %s",
                            p.getProcessId(),
                            p.getTag().isEmpty() ? "-" : p.getTag(),
                            DurableCli.state(p).replace('_', '-'),
                            p.getPid() > 0 ? Long.toString(p.getPid()) : "-",
                            p.hasExit() ? Integer.toString(DurableProcesses.shellExitCode(p.getExit())) : "-",
                            String.join(" ", p.getCommandList())));
        }
        return b.toString();
    }
}
