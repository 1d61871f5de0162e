-- server/modules/default.lua: serves / (the path with no module name). Greets the client
-- and says which paths exist; answers {t = "ping"} with {t = "pong"}.
return {
  onConnect = function(session)
    session:send({ t = "hello", server = "tycho", version = tycho.version, paths = { "/echo" } })
    return {
      onMessage = function(msg)
        if type(msg) == "table" and msg.t == "ping" then
          session:send({ t = "pong" })
        else
          session:send({ t = "error", code = "unknown", message = "this path only answers {\"t\":\"ping\"}" })
        end
      end,
    }
  end,
}
