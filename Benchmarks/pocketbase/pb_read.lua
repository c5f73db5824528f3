-- wrk: PocketBase, the user's 20 rows sorted (without the total count, as PostgREST by default).
wrk.method = "GET"
wrk.path = "/api/collections/todos/records?sort=sort_order&perPage=20&skipTotal=1"
wrk.headers["Authorization"] = os.getenv("PB_TOKEN")
