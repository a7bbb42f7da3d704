/**
 * The Istio release whose pilot-agent meshinject's agent stands in for: the node's ISTIO_VERSION
 * when the pod's metadata gives none (istiod tailors the configuration it sends by this version).
 * It follows the proxy image tag of the built-in injection values (src/inject/defaults/values.json).
 */
export const AGENT_ISTIO_VERSION = "1.28.0";
