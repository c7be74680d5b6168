package dev.cuckoo.server.command;

import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.protocol.Args;

/** Persistence commands: SAVE, BGSAVE, LASTSAVE, SHUTDOWN. */
public final class PersistenceCommands {
  private final ServerContext context;

  /** Creates the commands over the server's shared state. */
  PersistenceCommands(ServerContext context) {
    this.context = context;
  }

  /** SAVE. */
  void save(Session session, Request request) {
    Persistence persistence = context.persistence();
    if (persistence == null) {
      session.reply().ok();
      return;
    }
    if (session.replaying()) {
      session.reply().ok();
      return;
    }
    // the snapshot runs on the persistence thread: this event loop's other connections go on
    java.util.concurrent.CompletableFuture<String> done = persistence.saveAsync();
    if (done == null) {
      session.reply().error("ERR Background save already in progress");
      return;
    }
    session.defer(
        done.thenApply(
            error ->
                reply -> {
                  if (error == null) {
                    reply.ok();
                  } else {
                    reply.error("ERR " + error);
                  }
                }));
  }

  /** BGSAVE [SCHEDULE]. */
  /**
   * BGREWRITEAOF. The log here holds what changed since the snapshot, so rewriting it is taking a
   * snapshot into a new log generation: the same work as BGSAVE, with Redis's AOF replies.
   */
  void bgrewriteaof(Session session, Request request) {
    Persistence persistence = context.persistence();
    if (persistence != null && !persistence.saveInBackground()) {
      session.reply().error("ERR Background append only file rewriting already in progress");
      return;
    }
    session.reply().simple("Background append only file rewriting started");
  }

  void bgsave(Session session, Request request) {

    byte[][] args = request.args();
    if (args.length > 2 || (args.length == 2 && !Args.lower(args[1]).equals("schedule"))) {
      session.reply().error(Args.SYNTAX_ERROR);
      return;
    }
    Persistence persistence = context.persistence();
    if (persistence != null && !persistence.saveInBackground()) {
      session.reply().error("ERR Background save already in progress");
      return;
    }
    session.reply().simple("Background saving started");
  }

  /** LASTSAVE. */
  void lastsave(Session session, Request request) {
    Persistence persistence = context.persistence();
    session
        .reply()
        .integer(
            persistence == null ? context.startMillis() / 1000 : persistence.lastSaveSeconds());
  }

  /** SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE]: no reply; the server stops. */
  void shutdown(Session session, Request request) {
    byte[][] args = request.args();
    boolean save = true;
    for (int i = 1; i < args.length; i++) {
      String option = Args.lower(args[i]);
      if (option.equals("nosave")) {
        save = false;
      } else if (!option.equals("save") && !option.equals("now") && !option.equals("force")) {
        session.reply().error(Args.SYNTAX_ERROR);
        return;
      }
    }
    session.requestClose();
    boolean saveFinal = save;
    Thread stopper = new Thread(() -> context.shutdown().accept(saveFinal), "cuckoo-shutdown");
    stopper.start();
  }
}
