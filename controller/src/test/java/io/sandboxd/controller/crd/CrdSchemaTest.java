package io.sandboxd.controller.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Every agent-sandbox object in the example manifests (image/examples/, install/examples/ and the
 * upstream-style set in src/test/resources/upstream-examples/) is valid against the schema of its
 * CRD version in controller/crds/, checked offline with a JSON-schema validator; and the schemas
 * are structural all the way down: a misspelled field inside an embedded Pod spec, PVC spec or
 * NetworkPolicy rule is unknown to them, as it is to an API server that prunes or rejects unknown
 * fields (kubectl's default strict field validation).
 */
class CrdSchemaTest {
    static final Path CONTROLLER = Path.of(System.getProperty("controller.dir", "."));
    static final Path REPO = CONTROLLER.toAbsolutePath().getParent();
    static final List<Path> EXAMPLE_DIRS = List.of(
            REPO.resolve("image/examples"),
            REPO.resolve("install/examples"),
            CONTROLLER.resolve("src/test/resources/upstream-examples"));
    static final YAMLMapper YAML = new YAMLMapper();

    /** "group/version Kind" to the JSON schema of that CRD version. */
    static final Map<String, Schema> SCHEMAS = new HashMap<>();

    @BeforeAll
    static void loadCrds() throws IOException {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
        try (Stream<Path> files = Files.list(CONTROLLER.resolve("crds"))) {
            for (Path f : files.filter(CrdSchemaTest::isCrdFile).toList()) {
                JsonNode crd = YAML.readTree(f.toFile());
                JsonNode spec = crd.get("spec");
                for (JsonNode v : spec.get("versions")) {
                    String key =
                            spec.get("group").asString() + "/" + v.get("name").asString() + " "
                                    + spec.get("names").get("kind").asString();
                    ObjectNode schema = (ObjectNode) jsonSchema(v.get("schema").get("openAPIV3Schema"));
                    // What every object has and the API server itself checks.
                    ObjectNode props = (ObjectNode) schema.get("properties");
                    props.putObject("apiVersion").put("type", "string");
                    props.putObject("kind").put("type", "string");
                    props.putObject("metadata").put("type", "object");
                    SCHEMAS.put(key, registry.getSchema(schema));
                }
            }
        }
    }

    static boolean isCrdFile(Path f) {
        String n = f.getFileName().toString();
        return n.endsWith(".yaml") && !n.equals("kustomization.yaml");
    }

    /**
     * A Kubernetes structural schema as JSON Schema: an object with properties allows no others
     * (unless it preserves unknown fields), int-or-string is either, nullable admits null, and the
     * x-kubernetes extensions (CEL rules, list types) are left to the API server.
     */
    static JsonNode jsonSchema(JsonNode k8s) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        boolean intOrString = k8s.path("x-kubernetes-int-or-string").asBoolean(false);
        boolean preserve = k8s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        for (Map.Entry<String, JsonNode> e : k8s.properties()) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            if (key.startsWith("x-kubernetes-") || key.equals("nullable")) continue;
            switch (key) {
                case "properties" -> {
                    ObjectNode props = out.putObject("properties");
                    value.properties().forEach(p -> props.set(p.getKey(), jsonSchema(p.getValue())));
                }
                case "items", "additionalProperties" -> out.set(key, value.isObject() ? jsonSchema(value) : value);
                case "allOf", "anyOf", "oneOf" -> {
                    ArrayNode list = out.putArray(key);
                    value.forEach(s -> list.add(jsonSchema(s)));
                }
                case "not" -> out.set(key, jsonSchema(value));
                default -> out.set(key, value);
            }
        }
        if (intOrString) {
            out.remove("type");
            ArrayNode any = out.putArray("anyOf");
            any.addObject().put("type", "integer");
            any.addObject().put("type", "string");
        }
        if (k8s.path("nullable").asBoolean(false) && out.has("type")) {
            ArrayNode types =
                    JsonNodeFactory.instance.arrayNode().add(out.get("type")).add("null");
            out.set("type", types);
        }
        if (k8s.has("properties") && !preserve && !k8s.has("additionalProperties")) {
            out.put("additionalProperties", false);
        }
        return out;
    }

    /** One agent-sandbox object of an example file. */
    record Example(String file, int index, JsonNode object) {
        String key() {
            return object.path("apiVersion").asString() + " "
                    + object.path("kind").asString();
        }

        @Override
        public String toString() {
            return REPO.relativize(Path.of(file)) + "#" + index + " (" + key() + ")";
        }
    }

    static List<Example> examples() throws IOException {
        List<Example> out = new ArrayList<>();
        for (Path dir : EXAMPLE_DIRS) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".yaml"))
                        .sorted()
                        .toList()) {
                    int i = 0;
                    try (MappingIterator<JsonNode> docs =
                            YAML.readerFor(JsonNode.class).readValues(f.toFile())) {
                        while (docs.hasNext()) {
                            JsonNode doc = docs.next();
                            if (doc != null
                                    && doc.path("apiVersion").asString("").contains("agents.x-k8s.io/")) {
                                out.add(new Example(f.toString(), i, doc));
                            }
                            i++;
                        }
                    }
                }
            }
        }
        return out;
    }

    static List<Error> validate(JsonNode object) {
        String key =
                object.path("apiVersion").asString() + " " + object.path("kind").asString();
        Schema schema = SCHEMAS.get(key);
        assertThat(schema).as("a CRD serves %s", key).isNotNull();
        return schema.validate(object);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void exampleIsValid(Example example) {
        assertThat(validate(example.object())).as(example.toString()).isEmpty();
    }

    @Test
    void examplesCoverEveryKindAndBothVersions() throws IOException {
        Set<String> seen = new TreeSet<>();
        examples().forEach(e -> seen.add(e.key()));
        assertThat(seen).containsAll(SCHEMAS.keySet());
    }

    static JsonNode first(String file, String kind) throws IOException {
        return examples().stream()
                .filter(e -> e.file().endsWith(file)
                        && e.object().path("kind").asString().equals(kind))
                .findFirst()
                .orElseThrow()
                .object()
                .deepCopy();
    }

    static void rename(ObjectNode parent, String from, String to) {
        JsonNode v = parent.remove(from);
        assertThat(v).as("field %s", from).isNotNull();
        parent.set(to, v);
    }

    static void assertUnknown(JsonNode object, String field) {
        List<Error> errors = validate(object);
        assertThat(errors).as("errors for a misspelled %s", field).isNotEmpty();
        assertThat(errors.toString()).contains(field);
    }

    @Test
    void misspelledPodSpecFieldIsUnknownInBothVersions() throws IOException {
        for (String version : List.of("v1beta1", "v1alpha1")) {
            ObjectNode sandbox = (ObjectNode) first("image/examples/sandbox.yaml", "Sandbox");
            sandbox.put("apiVersion", "agents.x-k8s.io/" + version);
            assertThat(validate(sandbox)).isEmpty();
            rename((ObjectNode) sandbox.at("/spec/podTemplate/spec"), "containers", "containres");
            assertUnknown(sandbox, "containres");
        }
    }

    @Test
    void misspelledFieldsDeepInEmbeddedKubernetesTypesAreUnknown() throws IOException {
        ObjectNode sandbox = (ObjectNode) first("image/examples/sandbox.yaml", "Sandbox");
        rename((ObjectNode) sandbox.at("/spec/podTemplate/spec/containers/0"), "readinessProbe", "readynessProbe");
        assertUnknown(sandbox, "readynessProbe");

        ObjectNode claimTemplate = (ObjectNode) first("image/examples/sandbox.yaml", "Sandbox");
        rename((ObjectNode) claimTemplate.at("/spec/volumeClaimTemplates/0/spec"), "accessModes", "acessModes");
        assertUnknown(claimTemplate, "acessModes");

        ObjectNode template =
                (ObjectNode) first("upstream-examples/sandboxtemplate-network-policy.yaml", "SandboxTemplate");
        rename((ObjectNode) template.at("/spec/networkPolicy/ingress/0"), "from", "form");
        assertUnknown(template, "form");
        ObjectNode egress =
                (ObjectNode) first("upstream-examples/sandboxtemplate-network-policy.yaml", "SandboxTemplate");
        rename((ObjectNode) egress.at("/spec/networkPolicy/egress/0/to/0/ipBlock"), "cidr", "cdir");
        assertUnknown(egress, "cdir");
    }

    @Test
    void ownFieldsAreCheckedToo() throws IOException {
        ObjectNode sandbox = (ObjectNode) first("image/examples/sandbox.yaml", "Sandbox");
        ((ObjectNode) sandbox.get("spec")).put("operatingMode", "Paused");
        assertThat(validate(sandbox)).as("an operatingMode outside the enum").isNotEmpty();

        ObjectNode noTemplate = (ObjectNode) first("image/examples/sandbox.yaml", "Sandbox");
        ((ObjectNode) noTemplate.get("spec")).remove("podTemplate");
        assertThat(validate(noTemplate).toString())
                .as("a Sandbox without podTemplate")
                .contains("podTemplate");

        ObjectNode pool = (ObjectNode) first("image/examples/sandboxwarmpool.yaml", "SandboxWarmPool");
        rename((ObjectNode) pool.get("spec"), "replicas", "replcas");
        assertUnknown(pool, "replcas");
    }
}
