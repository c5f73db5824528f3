-- wrk: the todos list as the app reads it.
local jwt, anon = os.getenv("SOAR_TOKEN"), os.getenv("SOAR_ANON")
wrk.method = "GET"
wrk.path = "/rest/v1/todos?select=*&order=sort_order"
wrk.headers["apikey"] = anon
wrk.headers["Authorization"] = "Bearer " .. jwt
