// Translations: English and Hungarian (the game's original language). Every string the player sees comes
// from static/i18n/{en,hu}.json; `{name}` is replaced by a parameter, and a key with `_one`/`_other`
// variants picks one by the parameter `n`. The build fails when the two files do not have the same keys.

import en from "../static/i18n/en.json";
import hu from "../static/i18n/hu.json";

export type Lang = "en" | "hu";
export const LANGS: readonly Lang[] = ["en", "hu"];

const DICTS: Record<Lang, Record<string, string>> = { en, hu };
const STORAGE_KEY = "am.lang";

let lang: Lang = initialLang();
const listeners = new Set<() => void>();

function initialLang(): Lang {
  const params = new URLSearchParams(location.search);
  const asked = params.get("lang");
  if (asked === "en" || asked === "hu") return asked;
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === "en" || saved === "hu") return saved;
  } catch {
    /* storage may be off */
  }
  return navigator.language?.toLowerCase().startsWith("hu") ? "hu" : "en";
}

export function getLang(): Lang {
  return lang;
}

export function setLang(next: Lang): void {
  if (next === lang) return;
  lang = next;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    /* storage may be off */
  }
  document.documentElement.lang = next;
  for (const fn of listeners) fn();
}

/** Calls `fn` after each language switch; returns a function that stops it. */
export function onLangChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export type Params = Record<string, string | number | undefined>;

/** The text of `key` in the current language, with `{param}`s filled in. */
export function t(key: string, params: Params = {}): string {
  const dict = DICTS[lang];
  let text: string | undefined;
  if (typeof params.n === "number") {
    text = dict[`${key}_${params.n === 1 ? "one" : "other"}`];
  }
  text ??= dict[key] ?? DICTS.en[key];
  if (text === undefined) {
    console.warn(`missing translation: ${key}`);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    return v === undefined ? `{${name}}` : String(v);
  });
}

/** Whether a key exists (for optional texts such as refusal reasons the client knows). */
export function has(key: string): boolean {
  return key in DICTS[lang] || `${key}_one` in DICTS[lang];
}
