import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const PUT = operationRoute("PUT", "/put_canvas_node_file");
