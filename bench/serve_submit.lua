-- wrk script: durable job submissions (POST /v1/jobs), each a new job.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"spec":{"kind":"offline","function":"bench","tasks":1,' ..
           '"requests":{"cpu":"100m","memory":"64Mi"},"durationEstimate":"10m","delayTolerance":"1h"}}'
