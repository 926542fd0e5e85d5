package io.sandboxd.controller.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;

/** A by-name reference in the same namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class Ref {
    @Required
    private String name;

    public Ref() {}

    public Ref(String name) {
        this.name = name;
    }

    public String getName() {
        return name;
    }

    public void setName(String v) {
        name = v;
    }
}
