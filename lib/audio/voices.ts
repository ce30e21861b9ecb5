/** The spec's voices and audio fields (docs/SPEC.md 2.9): the one list of each. */
export const voices = [
  { id: 'alloy', name: 'Alloy', description: 'Neutral and balanced' },
  { id: 'echo', name: 'Echo', description: 'Warm and steady' },
  { id: 'fable', name: 'Fable', description: 'Expressive, for storytelling' },
  { id: 'onyx', name: 'Onyx', description: 'Deep and authoritative' },
  { id: 'nova', name: 'Nova', description: 'Bright and friendly' },
  { id: 'shimmer', name: 'Shimmer', description: 'Soft and clear' },
] as const;

export type VoiceId = (typeof voices)[number]['id'];
export const voiceIds: readonly VoiceId[] = voices.map((v) => v.id);
export const defaultVoice: VoiceId = 'alloy';
export const isVoiceId = (value: unknown): value is VoiceId => voiceIds.includes(value as VoiceId);

export const audioFields = ['arabic', 'english', 'commentary'] as const;
export type AudioField = (typeof audioFields)[number];
export const isAudioField = (value: unknown): value is AudioField => audioFields.includes(value as AudioField);

/** The language a field is spoken in: the Arabic text with an Arabic voice, the rest in English. */
export const languageOf = (field: AudioField): SpeechLanguage => (field === 'arabic' ? 'ar' : 'en');

export type SpeechLanguage = 'ar' | 'en';
