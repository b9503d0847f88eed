import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/get_canvas_node_file");
