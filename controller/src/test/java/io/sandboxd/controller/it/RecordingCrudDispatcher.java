package io.sandboxd.controller.it;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The CRUD mock plus three things it lacks. It records every DELETE with its body: the mock ignores
 * DeleteOptions, so the propagation policy the controller asked for is only visible on the wire.
 * It answers SelfSubjectRulesReview (JOSDK's Lease RBAC pre-check before leader election) with
 * the rules a real API server returns for a role allowed get/create/update on Leases; the CRUD mock
 * would just echo the request back without a status. And it answers a JSON patch whose {@code test}
 * op fails with the API server's 422 instead of no answer at all.
 */
final class RecordingCrudDispatcher extends KubernetesCrudDispatcher {
    record Delete(String path, String body) {}

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    final Queue<Delete> deletes = new ConcurrentLinkedQueue<>();

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        String path = request.getPath();
        if ("DELETE".equals(request.getMethod())) {
            deletes.add(new Delete(path, request.getUtf8Body()));
        }
        if ("POST".equals(request.getMethod())
                && path.startsWith("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")) {
            return new MockResponse()
                    .setResponseCode(201)
                    .setHeader("Content-Type", "application/json")
                    .setBody("""
          {"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{},
           "status":{"incomplete":false,"nonResourceRules":[],"resourceRules":[
             {"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["get","create","update"]}]}}""");
        }
        try {
            return super.dispatch(request);
        } catch (JsonPatchException e) {
            // The mock throws on a failed JSON patch "test" op and never answers, so the client waits
            // out its 60 s request timeout; the API server answers 422, as the stand-in does. The
            // controllers guard some writes with such a test, and a copy a moment stale fails it.
            return new MockResponse()
                    .setResponseCode(422)
                    .setHeader("Content-Type", "application/json")
                    .setBody(JSON.asJson(new StatusBuilder()
                            .withStatus("Failure")
                            .withReason("Invalid")
                            .withCode(422)
                            .withMessage(
                                    "the server rejected our request due to an error in our request: " + e.getMessage())
                            .build()));
        }
    }

    /** DELETE requests whose path ends with {@code /<plural>/<name>} in the namespace. */
    List<Delete> deletesOf(String ns, String plural, String name) {
        String suffix = "/namespaces/" + ns + "/" + plural + "/" + name;
        return deletes.stream()
                .filter(d -> {
                    String p = d.path();
                    int q = p.indexOf('?');
                    return (q < 0 ? p : p.substring(0, q)).endsWith(suffix);
                })
                .toList();
    }
}
