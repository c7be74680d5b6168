package dev.cuckoo.server.session;

/**
 * A command of the command layer as a session holds it for that layer: a request its transaction
 * queued (between MULTI and EXEC), or the command a name was last found as. Opaque here: the
 * session only keeps it, and only the command layer reads it.
 */
public interface CommandRef {}
