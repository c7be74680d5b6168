/**
 * ACL users in Redis 6+'s model: users with passwords (stored as SHA-256), enabled or not, whose
 * selectors allow commands (by name, category, subcommand or first argument), key patterns (read,
 * write or both) and Pub/Sub channel patterns; the check of one request against a user; the ACL
 * log; and the ACL file's format. It depends on the parameter table only: the command package
 * describes its commands to it through a {@link dev.cuckoo.server.acl.CommandCatalog} and each
 * request through an {@link dev.cuckoo.server.acl.AccessRequest}.
 */
package dev.cuckoo.server.acl;
