/**
 * The server's parameter table, as Redis's {@code static_configs[]}: {@link
 * dev.cuckoo.server.config.Parameters} lists every parameter once (name, Redis's aliases, type and
 * bounds, default, {@link dev.cuckoo.server.config.Mutability}, whether a change needs an applier),
 * and {@link dev.cuckoo.server.config.Config} holds their values. The command line, config files,
 * CONFIG GET/SET/REWRITE, INFO and {@code --help} all read the same entries, so a value CONFIG SET
 * accepts is one CONFIG REWRITE writes and a restart reads back.
 *
 * <p>This package imports no other package of the server: the components that need a change carried
 * out (the listener, the log, the slow log) register an applier with {@link
 * dev.cuckoo.server.config.Config#onChange}, and the others read {@link
 * dev.cuckoo.server.config.Config#get} when they need a value.
 */
package dev.cuckoo.server.config;
