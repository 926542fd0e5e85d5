package io.sandboxd.bench.footprint;

import java.util.List;

/** The kinds of memory a footprint breakdown sums mappings into. */
final class Category {
    static final String JAVA_HEAP = "java heap";
    static final String CLASS_SPACE = "class space";
    static final String CODE_CACHE = "code cache";
    static final String CDS = "CDS/AOT archive";
    static final String LIBJVM = "libjvm";
    static final String STACKS = "thread stacks";
    static final String OTHER_ANON = "other anon (malloc, metaspace, GC)";
    static final String FILES = "other files";

    static final List<String> ALL = List.of(JAVA_HEAP, CLASS_SPACE, CODE_CACHE, CDS, LIBJVM, STACKS, OTHER_ANON, FILES);

    private Category() {}
}
