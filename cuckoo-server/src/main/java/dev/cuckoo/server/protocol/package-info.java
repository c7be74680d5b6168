/**
 * RESP on the wire: the bounded request decoder (arrays of bulk strings and inline commands into
 * argument vectors), the reply encoder (RESP2 and RESP3 types), the connection's authentication
 * state the decoder's limits depend on, and the parsing of arguments as Redis parses them. Depends
 * on no other package of the server.
 */
package dev.cuckoo.server.protocol;
