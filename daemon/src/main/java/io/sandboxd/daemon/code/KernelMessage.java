package io.sandboxd.daemon.code;

import com.google.gson.JsonObject;

/**
 * One decoded, signature-checked Jupyter message (messaging protocol v5): its type, its own id,
 * the id of the request it answers (empty for none), and its content.
 */
record KernelMessage(String msgType, String msgId, String parentMsgId, JsonObject content) {}
