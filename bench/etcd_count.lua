-- wrk script: COUNT requests of one kind, then the thread stops (run it with -t1). KIND=nodes PUTs
-- /v1/nodes/node-1..COUNT; KIND=jobs POSTs COUNT jobs. Requests past COUNT (in flight on other
-- connections when it is reached) are GET /healthz, which store nothing.
local sent = 0
local count = tonumber(os.getenv("COUNT") or "1000")
local kind = os.getenv("KIND") or "jobs"
local headers = {["Content-Type"] = "application/json"}
local node = '{"spec":{"capacity":{"cpu":"64","memory":"256Gi"},"zone":"z1"},' ..
             '"metadata":{"labels":{"rack":"r1"}}}'
local job = '{"spec":{"kind":"offline","function":"bench","tasks":1,' ..
            '"requests":{"cpu":"100m","memory":"64Mi"},"durationEstimate":"10m","delayTolerance":"1h"}}'

request = function()
  sent = sent + 1
  if sent > count then
    return wrk.format("GET", "/healthz")
  end
  if kind == "nodes" then
    return wrk.format("PUT", "/v1/nodes/node-" .. sent, headers, node)
  end
  headers["Idempotency-Key"] = "bench-" .. sent
  return wrk.format("POST", "/v1/jobs", headers, job)
end

response = function(status, headers, body)
  if sent >= count then
    wrk.thread:stop()
  end
end
