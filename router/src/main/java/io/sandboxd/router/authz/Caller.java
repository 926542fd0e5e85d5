package io.sandboxd.router.authz;

import java.util.List;
import java.util.Map;

/** Who TokenReview says the token belongs to: what a SubjectAccessReview asks about. */
record Caller(String username, String uid, List<String> groups, Map<String, List<String>> extra) {}
