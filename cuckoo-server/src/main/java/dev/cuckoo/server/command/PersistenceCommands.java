package dev.cuckoo.server.command;

import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.Snapshots;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.session.Session;
import java.util.concurrent.CompletableFuture;

/**
 * Persistence commands: SAVE, BGSAVE, BGREWRITEAOF, LASTSAVE, SHUTDOWN, in every mode: with the
 * append-only log ({@code appendonly yes}) a snapshot also starts a new log generation; with
 * snapshots only ({@code appendonly no}, with or without save points) SAVE and BGSAVE write the
 * snapshot all the same, as Redis's do.
 */
public final class PersistenceCommands {
  private static final String IN_PROGRESS = "ERR Background save already in progress";

  private final ServerContext context;

  /** Creates the commands over the server's shared state. */
  PersistenceCommands(ServerContext context) {
    this.context = context;
  }

  /**
   * SAVE: answers OK once the snapshot is on disk, or the error that kept it from being written.
   */
  void save(Session session, Request request) {
    Snapshots snapshots = context.snapshots();
    if (snapshots == null || session.replaying()) {
      session.reply().ok();
      return;
    }
    // the snapshot runs on the persistence thread: this event loop's other connections go on
    CompletableFuture<String> done = snapshots.saveAsync(false);
    if (done == null) {
      session.reply().error(IN_PROGRESS);
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

  /**
   * BGREWRITEAOF. The log here holds what changed since the snapshot, so rewriting it is taking a
   * snapshot into a new log generation: the same work as BGSAVE, with Redis's AOF replies. Without
   * the log, as Redis with {@code appendonly no}, it only writes the snapshot.
   */
  void bgrewriteaof(Session session, Request request) {
    Snapshots snapshots = context.snapshots();
    if (snapshots != null && snapshots.saveAsync(false) == null) {
      session.reply().error("ERR Background append only file rewriting already in progress");
      return;
    }
    session.reply().simple("Background append only file rewriting started");
  }

  /** BGSAVE [SCHEDULE]: the outcome shows in INFO persistence (rdb_last_bgsave_status). */
  void bgsave(Session session, Request request) {
    byte[][] args = request.args();
    if (args.length > 2 || (args.length == 2 && !Args.lower(args[1]).equals("schedule"))) {
      session.reply().error(Args.SYNTAX_ERROR);
      return;
    }
    Snapshots snapshots = context.snapshots();
    if (snapshots == null || !snapshots.saveInBackground()) {
      session.reply().error(IN_PROGRESS);
      return;
    }
    session.reply().simple("Background saving started");
  }

  /** LASTSAVE: the Unix time of the last successful save, or of the start. */
  void lastsave(Session session, Request request) {
    session.reply().integer(context.saveStats().lastSaveSeconds());
  }

  /**
   * SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE]: no reply; the server stops. Without NOSAVE or SAVE it
   * saves as Redis does when save points are set, and always with the log on ({@link Persistence}).
   */
  void shutdown(Session session, Request request) {
    byte[][] args = request.args();
    Boolean save = null;
    for (int i = 1; i < args.length; i++) {
      String option = Args.lower(args[i]);
      boolean saveOption = option.equals("save") || option.equals("nosave");
      if (saveOption && save == null) {
        save = option.equals("save");
      } else if (saveOption || (!option.equals("now") && !option.equals("force"))) {
        // as Redis: NOSAVE and SAVE together are a syntax error
        session.reply().error(Args.SYNTAX_ERROR);
        return;
      }
    }
    session.requestClose();
    Boolean saveFinal = save;
    Thread stopper = new Thread(() -> context.shutdown().accept(saveFinal), "cuckoo-shutdown");
    stopper.start();
  }
}
