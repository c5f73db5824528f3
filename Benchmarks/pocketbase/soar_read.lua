-- wrk: soar, the user's 20 rows sorted (READ_PATH: another list, such as the team's notes).
wrk.method = "GET"
wrk.path = os.getenv("READ_PATH") or "/rest/v1/todos?select=*&order=sort_order"
wrk.headers["apikey"] = os.getenv("SOAR_ANON")
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SOAR_TOKEN")
