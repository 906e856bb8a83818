-- The soak mix (bench/soak.sh): one request after another from this list, on every connection.
-- No HEAD: wrk cannot tell a HEAD answer has no content and would wait for it.
-- Every answer is 2xx or 3xx, so wrk's "Non-2xx or 3xx responses" counts errors.
local mix
local i = 0

-- Built in init, once wrk has set the Host field in wrk.headers (at load time it is not yet).
init = function(args)
local etag = os.getenv("SOAK_ETAG") or '"none"'
local br = "gzip, deflate, br, zstd"
mix = {
  wrk.format("GET", "/", { ["Accept-Encoding"] = br }),                                -- 200 br
  wrk.format("GET", "/", { ["Accept-Encoding"] = br, ["If-None-Match"] = etag }),      -- 304
  wrk.format("GET", "/app.js", { ["Range"] = "bytes=0-99" }),                           -- 206
  wrk.format("GET", "/images/icon.png", { ["Range"] = "bytes=0-9, 100-109, -5" }),      -- 206 multipart
  wrk.format("GET", "/style.css", { ["Accept-Encoding"] = "gzip" }),                    -- 200 gzip
  wrk.format("GET", "/about", { ["Accept-Encoding"] = "zstd" }),                        -- 200 zstd
  wrk.format("GET", "/guide"),                                                          -- 308
  wrk.format("GET", "/docs/start?x=1"),                                                 -- 301 (_redirects)
  wrk.format("GET", "/app/settings", { ["Accept-Encoding"] = br }),                     -- 200 rewrite
  wrk.format("GET", "/", { ["If-Modified-Since"] = "Fri, 01 Jan 2100 00:00:00 GMT" }),  -- 304 by date
}
end

request = function()
  i = i % #mix + 1
  return mix[i]
end
